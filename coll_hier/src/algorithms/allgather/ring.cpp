// Allgather(v) ring over the whole communicator: n - 1 steps, every step waits for the
// slowest hop, the ring hops leaving the busiest node queue on its link while as many arrive
// (the link busy both ways: duplexBetaUs), each block past the eager limit with its rendezvous.
#include <string>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);
    const int cross = x.ringCross();
    const double S = q.bytes;
    const LinkCost &in = *x.in, &net = *x.net;
    const double us =
        cross ? x.steps * (exchangeStartUs(net) + crossingUs(net, cross) + cross * S * duplexBetaUs(net) +
                           rendezvousUs(net, S))
              : x.steps * (in.alpha_us + messageUs(in, S));
    return priced(callEstimate(a, q), us, std::to_string(cross) + " ring hops per step leave the busiest node");
}

extern const AlgorithmInfo allgather_ring = {HIERAGG_ALLGATHER, "ring", kServesFlat, 0, 0, 0,
                                             K::Knomial, "ring over the whole communicator", Pricing::Alone, cost};
extern const AlgorithmInfo allgatherv_ring = {HIERAGG_ALLGATHERV, "ring", kServesFlat, 0, 0, 0,
                                              K::Knomial, "ring over the whole communicator", Pricing::Alone, cost};

}  // namespace hieragg::hier::units
