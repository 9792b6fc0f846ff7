// Bruck's allgather(v): ceil(log2 p) steps for any size, priced by the exchange rounds
// model with partners r + d. Allgather's rotates a scratch of every block (two local
// copies of each); allgatherv's moves blocks straight from and into rbuf.
#include <cmath>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier::units {

static Estimate rounds(const AlgorithmInfo& a, const CostQuery& q, double copies) {
    Estimate e = callEstimate(a, q);
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);
    e.choice.predUs = doublingRoundsUs(x, q.bytes, true);
    if (copies > 0) e.choice.predUs += copies * x.n * q.bytes * x.in->beta_us_per_byte;
    e.choice.why = fmt("%.0f", std::ceil(std::log2(std::max(x.n, 1)))) + " rounds";
    return e;
}
static Estimate costScratch(const AlgorithmInfo& a, const CostQuery& q) { return rounds(a, q, 2.0); }
static Estimate costInPlace(const AlgorithmInfo& a, const CostQuery& q) { return rounds(a, q, 0.0); }

extern const AlgorithmInfo allgather_bruck = {
    HIERAGG_ALLGATHER, "bruck", kServesFlat, kNeedsIntracomm, 0, Emitter::Bruck, K::Knomial,
    "ceil(log2 p) steps for any size through a rotated scratch of every block (short blocks)", Pricing::Alone,
    costScratch};
extern const AlgorithmInfo allgatherv_bruck = {
    HIERAGG_ALLGATHERV, "bruck", kServesFlat, kNeedsIntracomm, 0, Emitter::Bruck, K::Knomial,
    "ceil(log2 p) steps for any size, blocks straight from and into rbuf (one message per run of blocks)",
    Pricing::Alone, costInPlace};

}  // namespace hieragg::hier::units
