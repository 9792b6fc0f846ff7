// Alltoall `hierarchical`: blocks travel through the leaders, one message per pair of
// subspaces: gather m*n blocks to the leader, exchange m*m blocks per pair of nodes (8 in
// flight), scatter.
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);  // decomposed (needs)
    const int m = x.m, n = x.n;
    const LinkCost &in = *x.in, &net = *x.net;
    const double S = q.bytes, L = x.groups;
    const double local = (m - 1) * n * S * in.beta_us_per_byte + x.lg * (in.alpha_us + in.theta_us);
    const double us = 2 * local + std::ceil((L - 1) / 8) * net.alpha_us + (L - 1) * messageUs(net, m * m * S);
    return priced(callEstimate(a, q), us,
                  std::to_string(x.groups) + " leaders, " + std::to_string(m) + " ranks per group");
}

extern const AlgorithmInfo alltoall_hierarchical = {
    HIERAGG_ALLTOALL, "hierarchical", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0,
    0, K::Knomial, "blocks travel through the leaders: one message per pair of subspaces",
    Pricing::Alone, cost};

}  // namespace hieragg::hier::units
