// Scan, exscan `leader_prefix`: a scan inside each outermost group, an exscan of the G group
// totals between the groups' last ranks, a binomial bcast of that prefix in each group.
#include <string>

#include "algorithms/Row.hpp"
#include "model/PrefixModel.hpp"
#include "recipes/ScanPulses.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const PrefixGroups x = prefixGroupsOf(q.call, q.params, q.links);
    const double S = q.bytes;
    const LinkCost &in = *x.in, &net = *x.net;
    // The in-group scan and the leaders' exscan are recursive doubling (exchange rounds; one
    // leader per group, so one message leaves a group per round), the bcast one-way rounds.
    const double us = x.lm * prefixExchangeUs(in, S) + x.lG * prefixExchangeUs(net, S) +
                      x.lm * prefixRoundUs(in, S, false) + S * in.gamma_us_per_byte;
    return priced(callEstimate(a, q), us, std::to_string(x.G) + " groups of up to " + std::to_string(x.M));
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
