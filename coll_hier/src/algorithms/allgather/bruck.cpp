// Bruck's allgather(v): ceil(log2 p) steps for any size, priced by the exchange rounds
// model with partners r + d. Allgather's rotates a scratch of every block (two local
// copies of each); allgatherv's moves blocks straight from and into rbuf.
#include <cmath>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/WhyText.hpp"
#include "hieragg/algorithms/BruckAllgather.hpp"
#include "hieragg/algorithms/BruckAllgatherv.hpp"
#include "recipes/GatheredBlocks.hpp"

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

// Allgather's: every block through a scratch rotated so that mine comes first.
static std::optional<Schedule> buildScratch(const CollCall& c, const Plan&) {
    const auto& a = c.args;
    const recipes::GatheredBlocks blocks{c};
    ScheduleBuilder b("flat-bruck");
    if (a.rcount * c.rtype.size == 0) return b.finish();
    const BufRef scratch = b.temp(CollCall::span(c.rtype, a.rcount * c.size), CollCall::bias(c.rtype));
    const Block mine = blocks.mine();
    BruckAllgather{}.emit(b, Group::whole(c.size, c.rank), mine.buf, mine.type, {kRecvBuf, 0}, kRecvType, a.rcount,
                          static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent, scratch, kNoStep, 0);
    return b.finish();
}
// Allgatherv's: blocks straight from and into rbuf, one message per run of adjacent blocks.
static std::optional<Schedule> buildInPlace(const CollCall& c, const Plan&) {
    const recipes::GatheredBlocks blocks{c};
    ScheduleBuilder b("flat-bruck");
    const StepId own = blocks.placeMine(b);
    BruckAllgatherv{}.emit(b, Group::whole(c.size, c.rank), blocks.all(),
                           [&](int x, int y) { return blocks.adjacent(x, y); }, own, 0);
    return b.finish();
}

extern const AlgorithmInfo allgather_bruck = {
    HIERAGG_ALLGATHER, "bruck", kServesFlat, kNeedsIntracomm, 0, 0, K::Knomial,
    "ceil(log2 p) steps for any size through a rotated scratch of every block (short blocks)", Pricing::Alone,
    costScratch, buildScratch};
extern const AlgorithmInfo allgatherv_bruck = {
    HIERAGG_ALLGATHERV, "bruck", kServesFlat, kNeedsIntracomm, 0, 0, K::Knomial,
    "ceil(log2 p) steps for any size, blocks straight from and into rbuf (one message per run of blocks)",
    Pricing::Alone, costInPlace, buildInPlace};

}  // namespace hieragg::hier::units
