// Allreduce `rabenseifner` (SliceAllreduce.hpp): recursive-halving reduce-scatter +
// recursive-doubling allgather, 2 log2 p steps; a node's ranks share its link.
#include <string>

#include "algorithms/Row.hpp"
#include "model/SliceModel.hpp"
#include "hieragg/algorithms/ButterflyAllreduce.hpp"
#include "recipes/SliceAllreduce.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const SliceLayout x = sliceLayoutOf(q.call, q.params, q.links);
    Estimate e = callEstimate(a, q);
    const int share = x.hier ? x.M : 1;
    e.choice.predUs = butterflyAllreduceUs(*x.net, x.n, q.bytes, x.seg * butterflyCore(x.n), share, true);
    e.choice.why = "2 log2 p steps, " + std::to_string(share) + " ranks share a link";
    return e;
}

static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    return recipes::sliceAllreduce(c, recipes::SliceKind::Rabenseifner);
}

extern const AlgorithmInfo allreduce_rabenseifner = {
    HIERAGG_ALLREDUCE, "rabenseifner", kServesFlat, kNeedsIntracomm | kNeedsCommutativeOp, kTunesSegment,
    0, K::Knomial, "recursive-halving reduce-scatter + recursive-doubling allgather",
    Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
