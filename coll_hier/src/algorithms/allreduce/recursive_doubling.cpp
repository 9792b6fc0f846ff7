// Allreduce `recursive_doubling` (SliceAllreduce.hpp): log2 p exchanges of the whole vector
// (short vectors).
#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/SliceModel.hpp"
#include "recipes/SliceAllreduce.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const SliceLayout x = sliceLayoutOf(q.call, q.params, q.links);
    Estimate e = callEstimate(a, q);
    const ButterflyCrossing crossing = butterflyCrossingOf(exchangeLayoutOf(q.call, q.params, q.links));
    e.choice.predUs = butterflyAllreduceUs(*x.net, x.hier ? *x.in : *x.net, x.n, q.bytes, x.seg, crossing, false);
    e.choice.why = "log2 p exchanges of the whole vector";
    return e;
}

static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    return recipes::sliceAllreduce(c, recipes::SliceKind::RecursiveDoubling);
}

extern const AlgorithmInfo allreduce_recursive_doubling = {
    HIERAGG_ALLREDUCE, "recursive_doubling", kServesFlat, kNeedsIntracomm | kNeedsCommutativeOp, kTunesSegment,
    0, K::Knomial, "log2 p exchanges of the whole vector (short vectors)", Pricing::Alone,
    cost, build};

}  // namespace hieragg::hier::units
