// Scan, exscan `linear`: the prefix passed along the rank chain, each rank combines and
// forwards the vector once (long vectors): n - 1 hops of a pulse, later pulses one hop
// behind each other.
#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "model/PrefixModel.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "model/SharedCoresModel.hpp"
#include "model/WhyText.hpp"
#include "recipes/ScanPulses.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    Estimate e = streamEstimate(a, q);
    const CollCall& c = q.call;
    const LinkCost& net = q.params.link[q.links.back()];
    const double S = q.bytes;
    const double seg = static_cast<double>(std::max<size_t>(c.segmentBytes, 1));
    const double pulses = std::max(1.0, std::ceil(S / seg)), unit = std::min(S, seg);
    const double hop = net.alpha_us + net.theta_us + unit * (net.beta_us_per_byte + net.gamma_us_per_byte);
    // Every rank combines and forwards the vector once: (n - 1) messages in all.
    const double cores = coresBoundUs(c, q.params, (c.size - 1) * pulses, unit, net);
    e.choice.predUs = std::max((c.size - 1 + pulses - 1) * hop, cores);
    // On one node the chain is forward-only like recursive doubling (rank i only sends to
    // i + 1), so back-to-back calls overlap: a middle rank's pulses in and out, its combines,
    // one start-up. Measured (np 4 and 8 on 2 cores, 64 KiB, interleaved): the chain
    // 1.9-2.0x tuned's linear scan, recursive doubling 3.0-5.4x. Across nodes it keeps its
    // latency (not measured there; leader_chain is that row).
    if (!isDecomposed(c))
        e.stream = std::max(pulses * (2 * messageUs(net, unit) + unit * net.gamma_us_per_byte) + net.alpha_us, cores);
    // With more ranks than cores the chain streams whatever its length: its n - 1 hand-offs
    // overlap the next calls' as the cores take turns. Measured (8 B, 8 ranks on 2 cores, 6
    // interleaved runs): the chain 2.6-2.8 us per call, recursive doubling 4.2-6.3 us, though
    // the chain's lone call (7 hand-offs) is over twice recursive doubling's 3.
    e.alwaysStreams = crowdedOneNode(c, q.params);
    e.choice.why = std::to_string(c.size - 1) + " hops, " + fmt("%.0f", pulses) + " pulses";
    return e;
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
