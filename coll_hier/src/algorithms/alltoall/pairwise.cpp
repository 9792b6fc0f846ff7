// Alltoall(v,w) by n - 1 pairwise exchange steps. Alltoall's is priced: 8 in flight, so
// start-ups overlap and a node's messages out queue on its link; the v and w variants'
// times are not modelled.
#include <algorithm>
#include <cmath>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);
    const double outOfNode = x.hier ? static_cast<double>(x.m) * (x.n - x.m) : 0.0, S = q.bytes;
    const LinkCost &in = *x.in, &net = *x.net;
    const double us = std::ceil(x.steps / 8) * (x.hier ? net.alpha_us : in.alpha_us) +
                      std::max(crossingUs(net, outOfNode) + outOfNode * S * net.beta_us_per_byte,
                               x.steps * messageUs(in, S));
    return priced(callEstimate(a, q), us, fmt("%.0f", outOfNode) + " messages leave the busiest node");
}
constexpr const char* kSummary = "n-1 pairwise exchange steps";

extern const AlgorithmInfo alltoall_pairwise = {HIERAGG_ALLTOALL, "pairwise", kServesFlat, 0, 0, 0,
                                                K::Knomial, kSummary, Pricing::Alone, cost};
extern const AlgorithmInfo alltoallv_pairwise = {HIERAGG_ALLTOALLV, "pairwise", kServesFlat, 0, 0,
                                                 0, K::Knomial, kSummary, Pricing::Stage, unpriced};
extern const AlgorithmInfo alltoallw_pairwise = {HIERAGG_ALLTOALLW, "pairwise", kServesFlat, 0, 0,
                                                 0, K::Knomial, kSummary, Pricing::Stage, unpriced};

}  // namespace hieragg::hier::units
