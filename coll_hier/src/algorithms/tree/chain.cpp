// The pipelined chain per space: bcast segments down the rank order with SPEC 3.5's chunk
// (t = (m/c + n - 2)(t_s + c/bw), best c = sqrt(m t_s bw / (n - 2))); reductions stream
// their pulses down it.
#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "model/SharedCoresModel.hpp"
#include "model/TreeModel.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    Estimate e = stageEstimate(a, q);
    StageChoice& s = e.choice;
    const Load& ld = q.load;
    const LinkCost& l = *q.link;
    const int n = q.members;
    if (n <= 1) return e;
    const double alpha = l.alpha_us;
    s.shape = TreeShape::chain();
    if (ld.shape == Shape::Bcast) {
        const double ts = alpha + l.theta_us;
        const double bw = l.beta_us_per_byte > 0 ? 1.0 / l.beta_us_per_byte : 1e12;
        double c = TreeBcast::optimalChainSegmentBytes(ld.bytes, n, ts, bw);
        c = std::min(std::max(c, static_cast<double>(std::max<size_t>(ld.elemBytes, 256))), std::max(ld.bytes, 1.0));
        if (ld.segmentCap > 0) c = std::max(std::min(c, ld.segmentCap), static_cast<double>(ld.elemBytes));
        c = std::max(c, std::ceil(ld.bytes / TreeBcast::kMaxSegments));  // what the emitter will cut
        s.segmentBytes = static_cast<size_t>(c);
        const double m = std::max(ld.bytes, 1.0);
        s.predUs = (std::ceil(m / c) + n - 2) * (ts + c * l.beta_us_per_byte);
        s.why = "c*=" + fmt("%.0f", c) + " B from m=" + fmt("%.0f", ld.bytes) + " t_s=" + fmt("%.3g", ts) +
                " bw=" + fmt("%.4g", bw) + " B/us";
        if (ld.sharedCores > 0) {
            // One lone call on shared cores (SharedCoresModel.hpp): every rank but the root
            // handles each segment and copies the whole message; a middle rank (the busiest)
            // also passes each segment on: every row's work and busiest rank (busiestRankUs),
            // so a chain and a tree with equal loads are priced equal to the bit.
            const double segments = std::ceil(m / c);
            const double own = segments * l.theta_us + ld.bytes * l.beta_us_per_byte;
            const double work = (n - 1) * own;
            const std::vector<RankMessages> msgs = treeMessages(TreeShape::chain().build(n, 0), Flow::Down);
            const double busiest = busiestRankUs(msgs, segments * l.theta_us, own);
            s.setCost(loneCrowdedCall(s.predUs, work, busiest, largestFanUs(msgs, segments * l.theta_us), n, alpha,
                                      ld.sharedCores));
            s.why += ", " + std::to_string(ld.sharedCores) + " cores";
        }
    } else {
        const double b = packetUs(l, ld, unitBytes(ld));  // one child per hop: the handshake every hop
        s.predUs = pulsedUs((n - 1) * (alpha + b), ld, hopOf(l, ld, unitBytes(ld)), 1.0) *
                   (ld.shape == Shape::Allreduce ? 2 : 1);
        s.why = fmt("%.0f", ld.pulses) + " pulses down a chain of " + std::to_string(n);
        if (ld.sharedCores > 0) {
            // A middle rank combines each pulse and passes it on (SharedCoresModel.hpp).
            const std::vector<RankMessages> msgs = treeMessages(TreeShape::chain().build(n, 0), Flow::Up);
            const double busiest = ld.pulses * busiestRankUs(msgs, l.theta_us, b);
            s.setCost(loneCrowdedCall(s.predUs, (n - 1) * ld.pulses * b, busiest,
                                      ld.pulses * largestFanUs(msgs, l.theta_us), n, alpha, ld.sharedCores));
            s.why += ", " + std::to_string(ld.sharedCores) + " cores shared";
        }
    }
    return e;
}
constexpr Pricing P = Pricing::Stage;
constexpr const char* kReduction = "pipelined chain per space: pulses stream down the rank order";

extern const AlgorithmInfo bcast_chain = {HIERAGG_BCAST, "chain", kAny, kNeedsIntracomm, kTunesSegment,
                                          kTraitTree, K::Chain,
                                          "pipelined chain per space, chunk from SPEC 3.5's formula", P, cost};
extern const AlgorithmInfo reduce_chain = {HIERAGG_REDUCE, "chain", kAny, 0, kPulsed, kTraitTree, K::Chain,
                                           kReduction, P, cost};
extern const AlgorithmInfo allreduce_chain = {HIERAGG_ALLREDUCE, "chain", kAny, 0, kPulsed, kTraitTree,
                                              K::Chain, kReduction, P, cost};
extern const AlgorithmInfo reduce_scatter_chain = {HIERAGG_REDUCE_SCATTER, "chain", kAny, 0, kPulsed,
                                                   kTraitTree, K::Chain, kReduction, P, cost};
extern const AlgorithmInfo reduce_scatter_block_chain = {HIERAGG_REDUCE_SCATTER_BLOCK, "chain", kAny, 0, kPulsed,
                                                         kTraitTree, K::Chain, kReduction, P, cost};

}  // namespace hieragg::hier::units
