// Reduce_scatter(_block) `hierarchical` (LeaderRingReduceScatter.hpp): reduce to each node's
// leader, ring reduce-scatter of node blocks between the leaders, scatter in the node.
#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "model/SliceModel.hpp"
#include "recipes/ReductionPulses.hpp"
#include "recipes/LeaderRingReduceScatter.hpp"
#include "recipes/ReduceScatterPulses.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::hier::units {

// reduce_scatter's `hierarchical` row (LeaderRingReduceScatter.hpp) on n ranks in G outermost
// groups of up to M, vector of `bytes`: pulses of a piece of every block (a node block of about
// one segment) flow through three stages that overlap across pulses, so the time is one pulse's
// latency through all of them plus (pulses - 1) times the leader's time per pulse:
//   in the group: pack + binomial reduce of the pulse vector V (ceil(log2 M) children at the leader);
//   leaders: G - 1 ring steps of one node block B, kPulseWindow pulses in flight;
//   scatter: the leader's M - 1 sends of one piece (start-ups overlap).
// The leader's own reductions and copies of the group stage do not overlap its ring (one
// progress engine does both), so per pulse they add to the slower of ring and scatter.
static double leaderRingReduceScatterUs(const LinkCost& in, const LinkCost& net, int n, int G, int M, double bytes,
                                 double seg) {
    if (n <= 1 || bytes <= 0) return 0;
    const double block = bytes / n, piece = std::max(1.0, std::min(block, seg / std::max(M, 1)));
    const double pulses = std::ceil(block / piece), V = n * piece, B = M * piece;
    const double lgM = std::ceil(std::log2(std::max(M, 1)));
    const double redUnit = in.theta_us + V * (in.beta_us_per_byte + in.gamma_us_per_byte);
    const double packUs = V * in.beta_us_per_byte;
    const double inLat = packUs + lgM * (in.alpha_us + redUnit), inBusy = packUs + lgM * redUnit;
    // A leader sends its block while its predecessor's arrives: the link busy both ways.
    const double ringUnit = net.theta_us + B * (duplexBetaUs(net) + net.gamma_us_per_byte);
    const double ringLat = (G - 1) * (net.alpha_us + ringUnit);
    const double ringBusy = std::max((G - 1) * ringUnit, ringLat / static_cast<double>(recipes::kPulseWindow));
    const double scatterBusy = (M - 1) * (in.theta_us + piece * in.beta_us_per_byte);
    const double scatterLat = (M > 1 ? in.alpha_us : 0.0) + scatterBusy;
    return inLat + ringLat + scatterLat + (pulses - 1) * (inBusy + std::max(ringBusy, scatterBusy));
}

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const SliceLayout x = sliceLayoutOf(q.call, q.params, q.links);
    Estimate e = callEstimate(a, q);
    if (!x.hier) return e;
    e.choice.predUs = leaderRingReduceScatterUs(*x.in, *x.net, x.n, x.G, x.M, q.bytes, x.seg);
    e.choice.why = std::to_string(x.G) + " leaders' ring of node blocks, groups of up to " + std::to_string(x.M);
    return e;
}
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition | kNeedsCommutativeOp;
constexpr const char* kSummary =
    "reduce to each node's leader, ring reduce-scatter of node blocks between leaders, scatter in the node";

// Over the decomposition only; else reduce + scatter runs.
static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    if (!recipes::useHierarchy(c)) return std::nullopt;
    const recipes::ResultBlocks x = recipes::resultBlocksOf(c);
    return recipes::leaderRingReduceScatter(c, x.counts, x.displs);
}

extern const AlgorithmInfo reduce_scatter_hierarchical = {HIERAGG_REDUCE_SCATTER, "hierarchical", kServesWhole,
                                                          kNeeds, kTunesSegment, 0, K::Knomial,
                                                          kSummary, Pricing::Alone, cost, build};
extern const AlgorithmInfo reduce_scatter_block_hierarchical = {HIERAGG_REDUCE_SCATTER_BLOCK, "hierarchical",
                                                                kServesWhole, kNeeds, kTunesSegment,
                                                                0, K::Knomial, kSummary,
                                                                Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
