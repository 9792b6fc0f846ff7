// Reduce_scatter(_block) `ring`: without a root, each block's partial travels the ring once
// (the first half of the ring allreduce): n - 1 steps of 1/n of the vector.
#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/SliceModel.hpp"
#include "model/SharedCoresModel.hpp"
#include "model/WhyText.hpp"
#include "recipes/ReductionPulses.hpp"
#include "recipes/ReduceScatterPulses.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const SliceLayout x = sliceLayoutOf(q.call, q.params, q.links);
    Estimate e = callEstimate(a, q);
    const LinkCost& net = *x.net;
    const int n = x.n;
    const double bytes = q.bytes;
    const double windows = std::ceil(std::max(1.0, std::ceil(bytes / (x.seg * n))) / recipes::kPulseWindow);
    // An empty vector: the recipe sends nothing (as every reduce_scatter row).
    if (n <= 1 || bytes <= 0) return priced(e, 0.0, "empty vector");
    if (x.hier) {
        // Across nodes each step is the allgather ring's (allgather/ring.cpp): every rank sends
        // its partial while it receives the next, the busiest node's `cross` hops leave it
        // together (an exchange round and a burst) while as many arrive (its link busy both
        // ways: duplexBetaUs), a pulse's message of one segment past the eager limit with its
        // rendezvous; kPulseWindow pulses overlap their start-ups, their bytes queue.
        const double msg = std::min(x.seg, bytes / n);
        e.choice.predUs = (n - 1) * windows * (exchangeStartUs(net) + crossingUs(net, x.cross) + rendezvousUs(net, msg)) +
                          (n - 1.0) / n * bytes * (x.cross * duplexBetaUs(net) + net.gamma_us_per_byte);
        e.choice.why = "n-1 steps of 1/n, " + std::to_string(x.cross) +
                       " ring hops leave the busiest node while as many arrive";
        return e;
    }
    // One node with more ranks than cores: a ring step ends when every rank has run once
    // (received, combined, sent), so it costs n / cores hand-offs in sequence, not one.
    // Measured (64 KiB, 2 cores, interleaved): ring 6.0-6.7x tuned on 8 ranks against
    // 0.8-1.9x for reduce + scatter; 1.4-2.7x on 4 ranks, where the trees were 2.5-3.3x.
    const double turns = crowdedOneNode(q.call, q.params) ? static_cast<double>(n) / q.params.nodeCores : 1.0;
    e.choice.predUs = (n - 1) * (turns * net.alpha_us + net.theta_us) * windows +
                      (n - 1.0) / n * bytes * (net.beta_us_per_byte + net.gamma_us_per_byte);
    e.choice.why = "n-1 steps of 1/n in the node";
    if (turns > 1) e.choice.why += ", " + fmt("%.1f", turns) + " ranks per core take turns each step";
    return e;
}
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsCommutativeOp;
constexpr const char* kSummary = "ring reduce-scatter without a root: each block's partial travels the ring once";

// In place (every rank alike) reduce + scatter runs: the owner's output overlaps inputs
// the ring still has to send.
static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    if (c.args.in_place) return std::nullopt;
    const recipes::ResultBlocks x = recipes::resultBlocksOf(c);
    return recipes::ringReduceScatter(c, x.counts, x.displs);
}

extern const AlgorithmInfo reduce_scatter_ring = {HIERAGG_REDUCE_SCATTER, "ring", kServesFlat, kNeeds, kTunesSegment,
                                                  0, K::Knomial, kSummary, Pricing::Alone, cost, build};
extern const AlgorithmInfo reduce_scatter_block_ring = {HIERAGG_REDUCE_SCATTER_BLOCK, "ring", kServesFlat, kNeeds,
                                                        kTunesSegment, 0, K::Knomial, kSummary,
                                                        Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
