// Allgather(v) `leader_ring`: linear gather into the leader; the leaders' ring of m blocks per
// step (one message per run of consecutive ranks) overlaps the binomial bcasts of arrived
// groups, which cost the leader lg copies of every group; then the last segment's bcast
// ends it. No staging.
#include <algorithm>
#include <string>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/WhyText.hpp"
#include "recipes/DataMovement.hpp"
#include "recipes/GatheredBlocks.hpp"
#include "recipes/LeaderRingAllgather.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);  // decomposed (needs)
    const Hierarchy& hh = *x.h;
    const double S = q.bytes, m = x.m, lg = x.lg;
    const LinkCost &in = *x.in, &net = *x.net;
    const int top = hh.levels() - 1;
    int runs = 1;
    for (int g = 0; g < x.groups; ++g) {
        const std::vector<int>& mem = hh.groupMembers(top, g);
        int rg = 1;
        for (size_t i = 1; i < mem.size(); ++i) rg += mem[i] != mem[i - 1] + 1;
        runs = std::max(runs, rg);
    }
    const double L = x.groups;
    const double gather = (m - 1) * (in.alpha_us + messageUs(in, S));
    // Each leader sends its step's blocks while its predecessor's arrive: the link busy both ways.
    const double ring = (L - 1) * (exchangeStartUs(net) + runs * net.theta_us + m * S * duplexBetaUs(net) +
                                   rendezvousUs(net, m * S / runs));
    const double fanout = L * lg * runs * messageUs(in, m * S / runs);
    // Ring steps are cut into segments (at most 64 per step beyond one per run) that are
    // forwarded and broadcast as they arrive: after the ring only the last segment's
    // bcast remains.
    const double segment = std::min(m * S, std::max(static_cast<double>(q.call.segmentBytes), m * S / 64));
    // Crowded node: the bcasts add to the ring, as multileader's forwards do (measured
    // 273-300 ms on 2 x 4 round robin at 4 MiB, 4 ranks on 2 cores).
    Estimate e = callEstimate(a, q);
    e.choice.predUs = gather + (x.crowded ? ring + fanout * m / q.params.nodeCores : std::max(ring, fanout)) +
                      lg * (in.alpha_us + messageUs(in, segment));
    e.choice.why = std::to_string(x.groups) + " leaders, " + std::to_string(runs) + " runs per group, ring " +
                   fmt("%.1f", ring) + " us vs bcasts " + fmt("%.1f", fanout) + " us";
    return e;
}
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition;
constexpr const char* kSummary =
    "blocks to the leader, leaders' ring of groups, each group broadcast as it arrives, no staging";

// Over the decomposition only (else the recipe's flat ring runs).
static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    return recipes::buildOverLeaders(c, "leader-ring-allgather", [&](const recipes::GatheredBlocks& blocks) {
        return recipes::leaderRingAllgather(
            c, [&](int r) { return blocks.of(r); }, blocks.mine(), [&](int x, int y) { return blocks.adjacent(x, y); });
    });
}

extern const AlgorithmInfo allgather_leader_ring = {HIERAGG_ALLGATHER, "leader_ring", kServesWhole, kNeeds, 0,
                                                    0, K::Knomial, kSummary, Pricing::Alone, cost, build};
extern const AlgorithmInfo allgatherv_leader_ring = {HIERAGG_ALLGATHERV, "leader_ring", kServesWhole, kNeeds, 0,
                                                     0, K::Knomial, kSummary, Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
