// Allgather by recursive doubling: log2 p exchanges of doubling ranges of blocks
// (power-of-two sizes), priced by the exchange rounds model.
#include <cmath>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/WhyText.hpp"
#include "hieragg/algorithms/RecursiveDoublingAllgather.hpp"
#include "recipes/GatheredBlocks.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);
    return priced(callEstimate(a, q), doublingRoundsUs(x, q.bytes, false),
                  fmt("%.0f", std::ceil(std::log2(std::max(x.n, 1)))) + " rounds");
}

static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    const auto& a = c.args;
    ScheduleBuilder b("flat-recursive-doubling");
    if (a.rcount * c.rtype.size == 0) return b.finish();
    const StepId own = recipes::GatheredBlocks{c}.placeMine(b);
    RecursiveDoublingAllgather{}.emit(b, Group::whole(c.size, c.rank), {kRecvBuf, 0}, kRecvType, a.rcount,
                                      static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent, own, 0);
    return b.finish();
}

extern const AlgorithmInfo allgather_recursive_doubling = {
    HIERAGG_ALLGATHER, "recursive_doubling", kServesFlat, kNeedsIntracomm | kNeedsPowerOfTwo, 0,
    0, K::Knomial, "log2 p exchanges of doubling ranges of blocks (power-of-two sizes)",
    Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
