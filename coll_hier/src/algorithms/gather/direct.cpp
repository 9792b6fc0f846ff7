// Gather/scatter `direct` (DirectRooted.hpp): every rank's block straight between it and the
// root, all messages posted at once: no store-and-forward (large blocks).
#include <algorithm>
#include <string>

#include "algorithms/Row.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "model/WhyText.hpp"
#include "recipes/DirectRooted.hpp"

namespace hieragg::hier::units {

// Gather/scatter `direct` (DirectRooted.hpp): every block moves once, straight between its
// rank and the root, all messages posted at once: start-ups overlap, the blocks of ranks
// outside the root's node queue on its link, the others on shared memory beside them.
// Priced for the worst root (the smallest node), since the plan serves every root.
static StageChoice predictDirect(const AlgorithmInfo& a, const CollCall& c, const Load& ld, const CostParams& p,
                                 const std::vector<int>& links) {
    StageChoice s = callChoice(a, c, links);
    const Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1, n = c.size;
    int smallest = n, largest = 1;
    for (int g = 0; g < h.groupCount(top); ++g) {
        const int m = static_cast<int>(h.groupMembers(top, g).size());
        smallest = std::min(smallest, m), largest = std::max(largest, m);
    }
    const double S = ld.bytes / std::max(n, 1), remote = n - smallest, local = largest - 1;
    const LinkCost& net = p.link[links.back()];
    const LinkCost& in = p.link[links.front()];
    // The remote blocks leave or reach the root's node together: a burst on its link.
    s.predUs = net.alpha_us + crossingUs(net, remote) + (n - 1 - remote) * net.theta_us +
               std::max(remote * S * net.beta_us_per_byte, local * S * in.beta_us_per_byte);
    s.why = fmt("%.0f", remote) + " blocks cross the root's link once, no store-and-forward";
    return s;
}

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    return estimateOf(predictDirect(a, q.call, q.load, q.params, q.links));
}

static std::optional<Schedule> buildGather(const CollCall& c, const Plan&) { return recipes::directGather(c); }
static std::optional<Schedule> buildScatter(const CollCall& c, const Plan&) { return recipes::directScatter(c); }

extern const AlgorithmInfo gather_direct = {
    HIERAGG_GATHER, "direct", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0, 0, K::Knomial,
    "every rank's block straight into the root's rbuf, all at once: no store-and-forward (large blocks)",
    Pricing::WholeTree, cost, buildGather};
extern const AlgorithmInfo scatter_direct = {
    HIERAGG_SCATTER, "direct", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0, 0, K::Knomial,
    "the root sends every rank its block straight from sbuf, remote nodes first: no store-and-forward",
    Pricing::WholeTree, cost, buildScatter};

}  // namespace hieragg::hier::units
