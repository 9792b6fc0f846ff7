// Allgather(v) `hierarchical`: gather to the leaders, ring among the leaders with m blocks
// per step, broadcast the n blocks down.
#include <string>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);  // decomposed (needs)
    const double S = q.bytes, L = x.groups, m = x.m, n = x.n, lg = x.lg;
    const LinkCost &in = *x.in, &net = *x.net;
    const double us = (m - 1) * S * in.beta_us_per_byte + lg * (in.alpha_us + in.theta_us) +
                      (L - 1) * (exchangeStartUs(net) + duplexMessageUs(net, m * S)) +
                      lg * (in.alpha_us + messageUs(in, n * S));
    return priced(callEstimate(a, q), us,
                  std::to_string(x.groups) + " leaders, " + std::to_string(x.m) + " ranks per group");
}
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition;
constexpr const char* kSummary = "gather to leaders, ring among leaders, broadcast down";

extern const AlgorithmInfo allgather_hierarchical = {HIERAGG_ALLGATHER, "hierarchical", kServesWhole, kNeeds,
                                                     kTunesSegment, 0, K::Knomial,
                                                     kSummary, Pricing::Alone, cost};
extern const AlgorithmInfo allgatherv_hierarchical = {HIERAGG_ALLGATHERV, "hierarchical", kServesWhole, kNeeds,
                                                      kTunesSegment, 0,
                                                      K::Knomial, kSummary, Pricing::Alone, cost};

}  // namespace hieragg::hier::units
