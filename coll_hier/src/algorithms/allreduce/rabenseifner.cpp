// Allreduce `rabenseifner` (SliceAllreduce.hpp): recursive-halving reduce-scatter +
// recursive-doubling allgather, 2 log2 p steps; the ranks of a node whose partner of a round
// is on another node share its link in that round.
#include <string>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/SliceModel.hpp"
#include "hieragg/algorithms/ButterflyAllreduce.hpp"
#include "recipes/SliceAllreduce.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const SliceLayout x = sliceLayoutOf(q.call, q.params, q.links);
    const ButterflyCrossing crossing = butterflyCrossingOf(exchangeLayoutOf(q.call, q.params, q.links));
    Estimate e = callEstimate(a, q);
    e.choice.predUs = butterflyAllreduceUs(*x.net, x.hier ? *x.in : *x.net, x.n, q.bytes, x.seg * butterflyCore(x.n),
                                           crossing, true);
    e.choice.why = x.hier ? "2 log2 p steps, a node's ranks whose partner is outside share its link" : "2 log2 p steps";
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
