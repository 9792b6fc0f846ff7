// Allreduce `ring` (SliceAllreduce.hpp): ring reduce-scatter + ring allgather over the whole
// communicator, 2(n - 1) steps of 1/n of the vector.
#include <string>

#include "algorithms/Row.hpp"
#include "model/SliceModel.hpp"
#include "recipes/SliceAllreduce.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const SliceLayout x = sliceLayoutOf(q.call, q.params, q.links);
    Estimate e = callEstimate(a, q);
    e.choice.predUs = ringAllreduceUs(*x.net, x.n, q.bytes, x.seg * x.n, x.cross);
    e.choice.why = "2(n-1) steps of 1/n, " + std::to_string(x.cross) + " ring hops leave the busiest node";
    return e;
}

static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    return recipes::sliceAllreduce(c, recipes::SliceKind::Ring);
}

extern const AlgorithmInfo allreduce_ring = {
    HIERAGG_ALLREDUCE, "ring", kServesFlat, kNeedsIntracomm | kNeedsCommutativeOp, kTunesSegment, 0,
    K::Knomial, "ring reduce-scatter + ring allgather over the whole communicator", Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
