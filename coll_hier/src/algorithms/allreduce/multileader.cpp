// Allreduce `multileader_ring` and `multileader_rabenseifner` (SliceAllreduce.hpp):
// reduce-scatter in each node into S slices, an allreduce of slice j among every node's
// member j (a ring, or Rabenseifner), allgather in the node.
#include <string>

#include "algorithms/Row.hpp"
#include "model/SliceModel.hpp"
#include "model/WhyText.hpp"
#include "recipes/SliceAllreduce.hpp"

namespace hieragg::hier::units {

// Between nodes every member of a column is on its own node: each round of the S columns'
// butterflies sends S messages across every node's link at once (the fold's too); their
// start-ups as one exchange round, as multileader_ring's steps (ringAllreduceUs).
static ButterflyCrossing sliceColumns(int S) {
    return [S](int) { return S; };
}

static Estimate slices(const AlgorithmInfo& a, const CostQuery& q, bool ringBetween) {
    const SliceLayout x = sliceLayoutOf(q.call, q.params, q.links);
    Estimate e = callEstimate(a, q);
    if (!x.hier) return e;
    const double bytes = q.bytes, slice = bytes / x.S;
    const double inner = ringAllreduceUs(*x.in, x.M, static_cast<double>(x.M) / x.S * bytes, x.seg * x.M, 1);
    const double between = ringBetween ? ringAllreduceUs(*x.net, x.G, slice, x.seg, x.S)
                                       : butterflyAllreduceUs(*x.net, *x.in, x.G, slice, x.seg, sliceColumns(x.S), true, false);
    e.choice.predUs = inner + between;
    e.choice.why = std::to_string(x.S) + " slices: node rings " + fmt("%.1f", inner) + " us, " + std::to_string(x.G) +
                   " nodes " + fmt("%.1f", between) + " us";
    return e;
}
static Estimate ringCost(const AlgorithmInfo& a, const CostQuery& q) { return slices(a, q, true); }
static Estimate rabenseifnerCost(const AlgorithmInfo& a, const CostQuery& q) { return slices(a, q, false); }
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition | kNeedsCommutativeOp;

static std::optional<Schedule> buildMultiLeaderRing(const CollCall& c, const Plan&) {
    return recipes::sliceAllreduce(c, recipes::SliceKind::MultiLeaderRing);
}
static std::optional<Schedule> buildMultiLeaderRabenseifner(const CollCall& c, const Plan&) {
    return recipes::sliceAllreduce(c, recipes::SliceKind::MultiLeaderRabenseifner);
}

extern const AlgorithmInfo allreduce_multileader_ring = {
    HIERAGG_ALLREDUCE, "multileader_ring", kServesWhole, kNeeds, kTunesSegment, 0, K::Knomial,
    "reduce-scatter in each node, ring allreduce of slice j among every node's member j, allgather", Pricing::Alone,
    ringCost, buildMultiLeaderRing};
extern const AlgorithmInfo allreduce_multileader_rabenseifner = {
    HIERAGG_ALLREDUCE, "multileader_rabenseifner", kServesWhole, kNeeds, kTunesSegment,
    0, K::Knomial,
    "reduce-scatter in each node, Rabenseifner allreduce of each slice between nodes, allgather", Pricing::Alone,
    rabenseifnerCost, buildMultiLeaderRabenseifner};

}  // namespace hieragg::hier::units
