// Scan, exscan `leader_prefix`: a scan inside each outermost group, an exscan of the G group
// totals between the groups' last ranks, a binomial bcast of that prefix in each group.
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "model/PrefixModel.hpp"
#include "recipes/ScanPulses.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);  // decomposed (needs)
    const double lm = x.lg, lG = std::ceil(std::log2(x.groups));
    const double S = q.bytes;
    const LinkCost &in = *x.in, &net = *x.net;
    // The in-group scan and the leaders' exscan are recursive doubling (exchange rounds; one
    // leader per group, so one message leaves a group per round), the bcast one-way rounds.
    const double us = lm * prefixExchangeUs(in, S) + lG * prefixExchangeUs(net, S) +
                      lm * prefixRoundUs(in, S, false) + S * in.gamma_us_per_byte;
    return priced(callEstimate(a, q), us, std::to_string(x.groups) + " groups of up to " + std::to_string(x.m));
}
static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    return recipes::leaderPrefix(c, c.args.kind == HIERAGG_EXSCAN);
}

extern const AlgorithmInfo scan_leader_prefix = {
    HIERAGG_SCAN, "leader_prefix", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsContiguousRanks, 0,
    0, K::Knomial,
    "scan in each node, exscan of the node totals between the last ranks, finished in each node (rank order)",
    Pricing::Alone, cost, build};
extern const AlgorithmInfo exscan_leader_prefix = {
    HIERAGG_EXSCAN, "leader_prefix", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsContiguousRanks, 0,
    0, K::Knomial,
    "exscan in each node, exscan of the node totals between the last ranks, finished in each node (rank order)",
    Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
