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
#include "model/WhyText.hpp"

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
    // More ranks than cores on one node: a lone call on shared cores (SharedCoresModel.hpp). The
    // schedule runs pulses of u = min(S, segment) bytes (ScanPulses), as the linear row's:
    // per pulse, in step d rank r sends to r + d (theta) and receives from r - d, combining
    // u bytes (each reception its own theta and rendezvous): sum over d of (n - d)
    // receptions per pulse in all.
    const LinkCost& l = *x.net;
    const double pulses = q.load.pulses, unit = q.load.pulseBytes;
    const double recv = messageUs(l, unit) + unit * l.gamma_us_per_byte;
    double work = 0;
    for (int d = 1; d < c.size; d *= 2) work += (c.size - d) * pulses * recv;
    const std::vector<RankMessages> msgs = doublingMessages(c.size);
    const double busiest = pulses * busiestRankUs(msgs, l.theta_us, recv);
    return priced(callEstimate(a, q),
                  loneCrowdedCall(rounds, work, busiest, pulses * largestFanUs(msgs, l.theta_us), c.size, l.alpha_us,
                                  q.params.nodeCores),
                  why + ", " + fmt("%.0f", pulses) + " pulses, " + std::to_string(q.params.nodeCores) +
                      " cores shared");
}

extern const AlgorithmInfo scan_recursive_doubling = {HIERAGG_SCAN, "recursive_doubling", kServesFlat, 0, 0,
                                                      0, K::Knomial,
                                                      "recursive doubling in rank order", Pricing::Alone, cost};
extern const AlgorithmInfo exscan_recursive_doubling = {HIERAGG_EXSCAN, "recursive_doubling", kServesFlat, 0, 0,
                                                        0, K::Knomial,
                                                        "recursive doubling in rank order", Pricing::Alone, cost};

}  // namespace hieragg::hier::units
