// Scan, exscan by recursive doubling in rank order: ceil(log2 n) exchange steps, every
// message to a higher rank (back-to-back calls overlap); step d: ranks d..n-1 receive and
// combine the whole vector.
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
    const LinkCost& net = q.params.link[q.links.back()];
    Estimate e = streamEstimate(a, q);
    double msgs = 0;
    for (int d = 1; d < c.size; d *= 2) msgs += c.size - d;
    const double cores = coresBoundUs(c, q.params, msgs, S, net);
    e.choice.predUs = std::max(lg * prefixExchangeUs(net, S), cores);
    e.stream = std::max(lg * (2 * messageUs(net, S) + S * net.gamma_us_per_byte) + net.alpha_us, cores);
    e.choice.why = "ceil(log2 " + std::to_string(c.size) + ") rounds";
    return e;
}

extern const AlgorithmInfo scan_recursive_doubling = {HIERAGG_SCAN, "recursive_doubling", kServesFlat, 0, 0,
                                                      0, K::Knomial,
                                                      "recursive doubling in rank order", Pricing::Alone, cost};
extern const AlgorithmInfo exscan_recursive_doubling = {HIERAGG_EXSCAN, "recursive_doubling", kServesFlat, 0, 0,
                                                        0, K::Knomial,
                                                        "recursive doubling in rank order", Pricing::Alone, cost};

}  // namespace hieragg::hier::units
