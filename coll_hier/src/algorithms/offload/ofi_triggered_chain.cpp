// Bcast's pipelined chain over the leaders whose relays forward by FI_TRIGGER sends fired
// by receive counters: SPEC 3.5's pipelined chain where every hop is one message over the
// provider (alpha + c beta of coll_hieragg_cost_ofi_*), c from its formula.
#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "algorithms/offload/OffloadPreference.hpp"
#include "hieragg/Transport.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier::units {

static Estimate price(const AlgorithmInfo& a, const CostQuery& q) {
    Estimate e = stageEstimate(a, q);
    if (q.members <= 1) return e;
    const int n = q.members;
    const LinkCost& o = q.params.offload;
    const Load& ld = q.load;
    StageChoice& s = e.choice;
    s.shape = TreeShape::chain();
    const double bw = o.beta_us_per_byte > 0 ? 1.0 / o.beta_us_per_byte : 1e12;
    double c = TreeBcast::optimalChainSegmentBytes(ld.bytes, n, o.alpha_us, bw);
    c = std::min(std::max(c, static_cast<double>(kTriggeredMinSegment)), std::max(ld.bytes, 1.0));
    if (ld.segmentCap > 0) c = std::max(std::min(c, ld.segmentCap), std::min(ld.bytes, 1.0 * kTriggeredMinSegment));
    c = std::max(1.0, std::floor(std::max(c, std::ceil(ld.bytes / kTriggeredMaxSegments))));
    s.segmentBytes = static_cast<size_t>(c);
    const double m = std::max(ld.bytes, 1.0);
    s.predUs = (std::ceil(m / c) + n - 2) * (o.alpha_us + c * o.beta_us_per_byte);
    s.why = fmt("%.0f", std::ceil(m / c)) + " triggered segments of " + fmt("%.0f", c) + " B down " +
            std::to_string(n - 1) + " hops";
    return e;
}
static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) { return preferredIfAsked(price(a, q), q); }

extern const AlgorithmInfo bcast_ofi_triggered_chain = {
    HIERAGG_BCAST, "ofi_triggered_chain", kServesLeaders, kNeedsIntracomm | kNeedsDecomposition | kNeedsTriggered,
    kTunesSegment, kTraitFabric, K::Chain,
    "pipelined chain over the leaders whose relays forward by FI_TRIGGER sends fired by receive counters",
    Pricing::Stage, cost};

}  // namespace hieragg::hier::units
