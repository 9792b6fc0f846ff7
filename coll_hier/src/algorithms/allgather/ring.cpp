// Allgather(v) ring over the whole communicator: n - 1 steps, every step waits for the
// slowest hop, the ring hops leaving the busiest node queue on its link.
#include <string>

#include "algorithms/Row.hpp"
#include "algorithms/allgather/ExchangeRow.hpp"

namespace hieragg::hier::units {

namespace {
using namespace model;

Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    Estimate e = exchangeEstimate(a, q);
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);
    const LinkCost &in = *x.in, &net = *x.net;
    const double S = q.bytes;
    const int cross = x.ringCross();
    e.choice.predUs =
        cross ? x.steps * (exchangeStartUs(net) + crossingUs(net, cross) + cross * S * net.beta_us_per_byte)
              : x.steps * (in.alpha_us + messageUs(in, S));
    e.choice.why = std::to_string(cross) + " ring hops per step leave the busiest node";
    return e;
}
}  // namespace

extern const AlgorithmInfo allgather_ring = {HIERAGG_ALLGATHER, "ring", kServesFlat, 0, 0, Emitter::Ring,
                                             K::Knomial, "ring over the whole communicator", Pricing::Alone, cost};
extern const AlgorithmInfo allgatherv_ring = {HIERAGG_ALLGATHERV, "ring", kServesFlat, 0, 0, Emitter::Ring,
                                              K::Knomial, "ring over the whole communicator", Pricing::Alone, cost};

}  // namespace hieragg::hier::units
