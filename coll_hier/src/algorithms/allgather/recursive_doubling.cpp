// Allgather by recursive doubling: log2 p exchanges of doubling ranges of blocks
// (power-of-two sizes), priced by the exchange rounds model.
#include <cmath>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);
    return priced(callEstimate(a, q), doublingRoundsUs(x, q.bytes, false),
                  fmt("%.0f", std::ceil(std::log2(std::max(x.n, 1)))) + " rounds");
}

extern const AlgorithmInfo allgather_recursive_doubling = {
    HIERAGG_ALLGATHER, "recursive_doubling", kServesFlat, kNeedsIntracomm | kNeedsPowerOfTwo, 0,
    Emitter::RecursiveDoubling, K::Knomial, "log2 p exchanges of doubling ranges of blocks (power-of-two sizes)",
    Pricing::Alone, cost};

}  // namespace hieragg::hier::units
