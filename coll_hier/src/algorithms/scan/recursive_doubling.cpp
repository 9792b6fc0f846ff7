// Scan, exscan by recursive doubling in rank order: ceil(log2 n) exchange steps; step d:
// every rank r sends its partial prefix to r + d, ranks d..n-1 receive and combine the
// whole vector. Over groups, most steps send most ranks' messages between groups at once.
#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "model/MessageCost.hpp"
#include "model/PrefixModel.hpp"
#include "model/SharedCoresModel.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const CollCall& c = q.call;
    const double S = q.bytes, lg = std::ceil(std::log2(std::max(1, c.size)));
    const ExchangeLayout x = exchangeLayoutOf(c, q.params, q.links);
    int crossing = 0;
    const double rounds = doublingLatencyUs(x, S, &crossing);
    const std::string why = "ceil(log2 " + std::to_string(c.size) + ") = " + std::to_string(static_cast<int>(lg)) +
                            " rounds, " + std::to_string(crossing) + " between groups";
    if (!crowdedOneNode(c, q.params)) return priced(callEstimate(a, q), rounds, why);
    // More ranks than cores on one node: back-to-back calls (SharedCoresModel.hpp). In step
    // d rank r sends to r + d (theta) and receives from r - d, combining the whole vector:
    // sum over d of (n - d) receptions in all.
    const LinkCost& l = *x.net;
    const double recv = messageUs(l, S) + S * l.gamma_us_per_byte;
    double work = 0;
    for (int d = 1; d < c.size; d *= 2) work += (c.size - d) * recv;
    const double busiest = busiestRankUs(doublingMessages(c.size), l.theta_us, recv);
    return priced(callEstimate(a, q), streamCall(rounds, work, busiest, q.params.nodeCores),
                  why + ", back-to-back calls, " + std::to_string(q.params.nodeCores) + " cores");
}

extern const AlgorithmInfo scan_recursive_doubling = {HIERAGG_SCAN, "recursive_doubling", kServesFlat, 0, 0,
                                                      0, K::Knomial,
                                                      "recursive doubling in rank order", Pricing::Alone, cost};
extern const AlgorithmInfo exscan_recursive_doubling = {HIERAGG_EXSCAN, "recursive_doubling", kServesFlat, 0, 0,
                                                        0, K::Knomial,
                                                        "recursive doubling in rank order", Pricing::Alone, cost};

}  // namespace hieragg::hier::units
