// Scan, exscan `leader_chain`: a scan in each outermost group, the running prefix passed from
// group to group in rank order (last rank -> next group's first rank): G - 1 crossings one
// after the other, one message each.
#include <string>

#include "algorithms/Row.hpp"
#include "model/PrefixModel.hpp"
#include "recipes/ScanPulses.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);  // decomposed (needs)
    const double lm = x.lg;
    const LinkCost &in = *x.in, &net = *x.net;
    const double S = q.bytes;
    // Group 0's recursive-doubling scan (lm exchange rounds), then G - 1 passes: the prefix
    // crosses to the next group's first rank, goes down its binomial tree to the last rank
    // (lm rounds), which combines it and passes it on; the last group's tree reaches all.
    const double us = lm * prefixExchangeUs(in, S) +
                      (x.groups - 1) * (prefixRoundUs(net, S, false) + lm * prefixRoundUs(in, S, false) +
                                   S * in.gamma_us_per_byte);
    return priced(callEstimate(a, q), us,
                  std::to_string(x.groups) + " groups of up to " + std::to_string(x.m) + ", " + std::to_string(x.groups - 1) +
                      " crossings in turn");
}
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition | kNeedsContiguousRanks;

static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    return recipes::leaderChain(c, c.args.kind == HIERAGG_EXSCAN);
}

extern const AlgorithmInfo scan_leader_chain = {
    HIERAGG_SCAN, "leader_chain", kServesWhole, kNeeds, 0, 0, K::Knomial,
    "scan in each node, the running prefix passed from node to node in rank order (one message per crossing)",
    Pricing::Alone, cost, build};
extern const AlgorithmInfo exscan_leader_chain = {
    HIERAGG_EXSCAN, "leader_chain", kServesWhole, kNeeds, 0, 0, K::Knomial,
    "exscan in each node, the running prefix passed from node to node in rank order (one message per crossing)",
    Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
