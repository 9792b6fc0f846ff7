// Scan, exscan by recursive doubling in rank order: ceil(log2 n) exchange steps; step d:
// every rank r sends its partial prefix to r + d, ranks d..n-1 receive and combine the
// whole vector. Over groups, most steps send most ranks' messages between groups at once.
#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "model/PrefixModel.hpp"
#include "model/SharedCoresModel.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const CollCall& c = q.call;
    const double S = q.bytes, lg = std::ceil(std::log2(std::max(1, c.size)));
    const ExchangeLayout x = exchangeLayoutOf(c, q.params, q.links);
    int crossing = 0;
    const double rounds = doublingLatencyUs(x, S, &crossing);
    // More ranks than cores on one node: sum over d of (n - d) receptions on the shared cores.
    double msgs = 0;
    for (int d = 1; d < c.size; d *= 2) msgs += c.size - d;
    const double cores = coresBoundUs(c, q.params, msgs, S, *x.net);
    return priced(callEstimate(a, q), std::max(rounds, cores),
                  "ceil(log2 " + std::to_string(c.size) + ") = " + std::to_string(static_cast<int>(lg)) + " rounds, " +
                      std::to_string(crossing) + " between groups");
}

extern const AlgorithmInfo scan_recursive_doubling = {HIERAGG_SCAN, "recursive_doubling", kServesFlat, 0, 0,
                                                      0, K::Knomial,
                                                      "recursive doubling in rank order", Pricing::Alone, cost};
extern const AlgorithmInfo exscan_recursive_doubling = {HIERAGG_EXSCAN, "recursive_doubling", kServesFlat, 0, 0,
                                                        0, K::Knomial,
                                                        "recursive doubling in rank order", Pricing::Alone, cost};

}  // namespace hieragg::hier::units
