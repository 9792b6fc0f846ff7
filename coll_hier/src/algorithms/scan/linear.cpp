// Scan, exscan `linear`: the prefix passed along the rank chain, each rank combines and
// forwards the vector once (long vectors): n - 1 hops of a pulse, later pulses one hop
// behind each other. Open MPI's own scan (coll/basic, tuned's default) is this chain with
// the whole vector as one pulse.
#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "model/MessageCost.hpp"
#include "model/PrefixModel.hpp"
#include "model/SharedCoresModel.hpp"
#include "model/WhyText.hpp"
#include "recipes/ScanPulses.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const CollCall& c = q.call;
    const double pulses = q.load.pulses, unit = q.load.pulseBytes;  // coll_hieragg_segment_size's pulses
    const ExchangeLayout x = exchangeLayoutOf(c, q.params, q.links);
    int crossings = 0;
    const double chain = chainLatencyUs(x, unit, pulses, &crossings);
    const std::string why = std::to_string(c.size - 1) + " hops (" + std::to_string(crossings) +
                            " between groups), " + fmt("%.0f", pulses) + " pulses";
    if (!crowdedOneNode(c, q.params)) return priced(callEstimate(a, q), chain, why);
    // More ranks than cores on one node: a lone call on shared cores (SharedCoresModel.hpp).
    // Each pulse is n - 1 receptions, each combined; a middle rank receives and sends one.
    const LinkCost& l = *x.net;
    const double recv = messageUs(l, unit) + unit * l.gamma_us_per_byte;
    const std::vector<RankMessages> msgs = treeMessages(TreeShape::chain().build(c.size, 0), Flow::Down);
    const double busiest = pulses * busiestRankUs(msgs, l.theta_us, recv);
    return priced(callEstimate(a, q),
                  loneCrowdedCall(chain, (c.size - 1) * pulses * recv, busiest, pulses * largestFanUs(msgs, l.theta_us),
                                  c.size, l.alpha_us, q.params.nodeCores),
                  why + ", " + std::to_string(q.params.nodeCores) + " cores shared");
}
constexpr const char* kSummary =
    "prefix passed along the rank chain: each rank combines and forwards the vector once (long vectors)";

static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    return recipes::linearPrefix(c, c.args.kind == HIERAGG_EXSCAN);
}

extern const AlgorithmInfo scan_linear = {HIERAGG_SCAN, "linear", kServesFlat, 0, 0, 0, K::Chain,
                                          kSummary, Pricing::Alone, cost, build};
extern const AlgorithmInfo exscan_linear = {HIERAGG_EXSCAN, "linear", kServesFlat, 0, 0, 0, K::Chain,
                                            kSummary, Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
