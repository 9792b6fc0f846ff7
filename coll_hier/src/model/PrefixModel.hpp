// The prefix model (scan, exscan): rows priced as one call of a back-to-back stream (IMB's
// loop, any loop of scans). A row whose every message goes to a higher rank (recursive
// doubling, leader_chain, and on one node the rank chain) lets consecutive calls overlap,
// so a call costs its busiest rank's occupancy (theta + S beta per message it sends or
// receives, S gamma per reduction) plus one crossing; a row with a message back to a lower
// rank (the leader prefix's bcast from the last rank into its group) makes each call wait
// for the previous call's, so it costs its whole latency. A forward-only row is priced that
// way only while a lone call of it takes at most twice the lowest lone-call latency (the
// chooser's rule for Estimate::stream); else by its latency.
#pragma once
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "model/MessageCost.hpp"

namespace hieragg::hier::model {

// One message of S bytes with its start-up, combined on arrival when `reduces`.
inline double prefixRoundUs(const LinkCost& l, double S, bool reduces) {
    return l.alpha_us + l.theta_us + S * (l.beta_us_per_byte + (reduces ? l.gamma_us_per_byte : 0.0));
}
// A recursive-doubling step: every rank sends to r + d while it receives from r - d.
inline double prefixExchangeUs(const LinkCost& l, double S) {
    return exchangeRoundUs(l) + S * (l.beta_us_per_byte + l.gamma_us_per_byte);
}

// The outermost groups of a decomposed prefix: G of them, the largest of M ranks, and the
// link inside them.
struct PrefixGroups {
    int G = 1, M = 1;
    double lm = 0, lG = 0;  // ceil(log2 M), ceil(log2 G)
    const LinkCost* in = nullptr;
};
PrefixGroups prefixGroupsOf(const CollCall& c, const CostParams& p, const std::vector<int>& links);

}  // namespace hieragg::hier::model
