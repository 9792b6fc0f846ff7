// Scan, exscan `leader_chain`: a scan in each outermost group, the running prefix passed from
// group to group in rank order (last rank -> next group's first rank): every message goes
// to a higher rank, so back-to-back calls overlap.
#include <string>

#include "algorithms/Row.hpp"
#include "model/PrefixModel.hpp"
#include "recipes/ScanPulses.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    Estimate e = streamEstimate(a, q);
    const PrefixGroups x = prefixGroupsOf(q.call, q.params, q.links);
    const LinkCost &in = *x.in, &net = q.params.link[q.links.back()];
    const double S = q.bytes, lm = x.lm;
    // Each group on the way: the prefix arrives, goes down the group's binomial tree to its
    // last rank, which combines it and passes it on.
    e.choice.predUs = lm * prefixRoundUs(in, S, true) +
                      (x.G - 1) * (prefixRoundUs(net, S, false) + lm * prefixRoundUs(in, S, false) +
                                   S * in.gamma_us_per_byte) +
                      lm * prefixRoundUs(in, S, false);
    // A group's first rank: its in-group rounds, the prefix in, its bcast sends, the finish;
    // a group of one also passes the prefix on.
    e.stream = lm * (2 * messageUs(in, S) + S * in.gamma_us_per_byte) + 2 * messageUs(net, S) +
               lm * messageUs(in, S) + S * in.gamma_us_per_byte + net.alpha_us;
    e.choice.why = std::to_string(x.G) + " groups of up to " + std::to_string(x.M);
    return e;
}
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition | kNeedsContiguousRanks;

static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    return recipes::leaderChain(c, c.args.kind == HIERAGG_EXSCAN);
}

extern const AlgorithmInfo scan_leader_chain = {
    HIERAGG_SCAN, "leader_chain", kServesWhole, kNeeds, 0, 0, K::Knomial,
    "scan in each node, the running prefix passed from node to node in rank order (back-to-back calls overlap)",
    Pricing::Alone, cost, build};
extern const AlgorithmInfo exscan_leader_chain = {
    HIERAGG_EXSCAN, "leader_chain", kServesWhole, kNeeds, 0, 0, K::Knomial,
    "exscan in each node, the running prefix passed from node to node in rank order (back-to-back calls overlap)",
    Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
