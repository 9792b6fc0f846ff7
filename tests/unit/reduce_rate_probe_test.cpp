// ReduceRateProbe (src/runtime/ReduceRateProbe.hpp): the model's gamma measured at setup. The
// fit of synthetic timings (floors per size, least-squares slope) against the rate they were
// made from, the ranks' agreement (median), which link classes take it (the user's gamma
// wins), and a crowded node's scan priced with a given gamma against the closed form of its
// inputs (alpha, beta, theta, the rendezvous, gamma, the cores).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "../../src/runtime/ReduceRateProbe.hpp"
#include "OversubscribedNodeCosts.hpp"
#include "SimFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/OversubscribedNode.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

// Timings of a rate g [ns/B] with a fixed cost c [us] per call: t(m) = c + m g / 1000, each
// size taken `reps` times, every rep but one slowed by `slowdown` (a descheduled sample).
std::vector<ReductionTiming> timingsOf(double g, double c, std::vector<double> sizes, int reps, double slowdown) {
    std::vector<ReductionTiming> t;
    for (int r = 0; r < reps; ++r)
        for (double m : sizes) t.push_back({m, (c + m * g / 1000) * (r == reps / 2 ? 1.0 : slowdown)});
    return t;
}

TEST(ReduceRateProbe, TheSlopeOfTheFloorsIsTheRate) {
    for (double g : {0.03, 0.08, 0.25, 1.7})
        for (double c : {0.0, 0.05, 2.0}) {
            const double got = reduceRateFromTimings(timingsOf(g, c, {4096, 16384, 65536}, 9, 1.0 + g));
            EXPECT_NEAR(got, g, 1e-9 * g) << "g=" << g << " c=" << c;
        }
    // Two sizes are enough; their order does not matter.
    EXPECT_NEAR(reduceRateFromTimings({{65536, 0.3 + 65536 * 0.1 / 1000}, {4096, 0.3 + 4096 * 0.1 / 1000}}), 0.1, 1e-9);
}

TEST(ReduceRateProbe, NoRateWithoutTwoSizesOrARisingLine) {
    EXPECT_EQ(reduceRateFromTimings({}), 0.0);
    EXPECT_EQ(reduceRateFromTimings(timingsOf(0.1, 0.5, {65536}, 5, 2.0)), 0.0) << "one size";
    // Falling with the size (every sample of the small size delayed): no rate.
    EXPECT_EQ(reduceRateFromTimings({{4096, 9.0}, {65536, 4.0}}), 0.0);
    // Samples that are no time are dropped, not floors.
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    std::vector<ReductionTiming> t = timingsOf(0.2, 0.1, {4096, 65536}, 3, 1.5);
    t.push_back({4096, 0.0});
    t.push_back({65536, -1.0});
    t.push_back({65536, nan});
    t.push_back({4096, inf});
    EXPECT_NEAR(reduceRateFromTimings(t), 0.2, 1e-9);
}

TEST(ReduceRateProbe, EveryRankTakesTheMedianOfTheRanks) {
    EXPECT_EQ(agreedReduceRate({0.3, 0.1, 0.2}), 0.2);
    EXPECT_EQ(agreedReduceRate({0.4, 0.1, 0.0, std::numeric_limits<double>::quiet_NaN()}), 0.25)
        << "ranks without a rate do not count";
    EXPECT_EQ(agreedReduceRate({0.0, -1.0}), 0.0);
    EXPECT_EQ(agreedReduceRate({}), 0.0);
}

TEST(ReduceRateProbe, EveryLinkTakesItButWhereTheUserSetGamma) {
    hier::CostParams p = hier::CostParams::defaults();
    const int set[HIERAGG_LINK_CLASS_COUNT] = {0, HIERAGG_COST_SET_GAMMA, HIERAGG_COST_SET_ALPHA, 0};
    const double userNode = p.link[hier::kLinkNode].gamma_us_per_byte;
    applyReduceRate(p, 0.06, set);
    EXPECT_EQ(p.link[hier::kLinkNuma].gamma_us_per_byte, 0.06 / 1000);
    EXPECT_EQ(p.link[hier::kLinkNode].gamma_us_per_byte, userNode) << "coll_hieragg_cost_node_gamma wins";
    EXPECT_EQ(p.link[hier::kLinkNetwork].gamma_us_per_byte, 0.06 / 1000) << "only its alpha was set";
    EXPECT_EQ(p.link[hier::kLinkSwitch].gamma_us_per_byte, 0.06 / 1000);
    const hier::CostParams before = p;
    applyReduceRate(p, 0.0, set);
    for (int l = 0; l < hier::kLinkClassCount; ++l)
        EXPECT_EQ(p.link[l].gamma_us_per_byte, before.link[l].gamma_us_per_byte) << "no rate: nothing changes";
}

// The one-node scan of 64 KiB on 4 ranks of 2 cores with a node link as the setup measured it
// in a quiet job (alpha 6.39 us, beta 0.08 ns/B, theta 0.28 us, a rendezvous of 5.09 us past
// 4 KiB), priced with a given gamma: the chain 3 hops of alpha + u (beta + gamma) + rendezvous
// against its turns (4 alpha + 3 r) / 2, r = theta + u beta + rendezvous + u gamma; the price
// moves with gamma by exactly 3 u per ns/B on the path.
TEST(ReduceRateProbe, TheChainsHopIsPricedWithTheGivenGamma) {
    const int n = 4, cores = 2;
    const double alpha = 6.39, theta = 0.28, beta = 0.08e-3, rdv = 5.09, u = 65536;
    for (double g : {0.25, 0.05, 0.01}) {
        const int none[HIERAGG_LINK_CLASS_COUNT] = {0, 0, 0, 0};
        hier::CostParams p = oversubscribedNodeCosts(n, cores);
        hier::LinkCost& l = p.link[hier::kLinkNode];
        l.alpha_us = alpha;
        l.theta_us = theta;
        l.beta_us_per_byte = beta;
        l.eager_bytes = 4096;
        l.rendezvous_us = rdv;
        applyReduceRate(p, g, none);
        CollCall c = baseCall(HIERAGG_SCAN, 0, n, nullptr);
        c.args.rcount = static_cast<size_t>(u) / 4;
        c.args.op_commutative = 1;
        c.rtype = {4, 0, 4, 0, 4};
        c.segmentBytes = 65536;
        c.algorithm = hier::algorithmValue(*hier::algorithmByName(HIERAGG_SCAN, "linear"));
        const hier::Plan plan = hier::choosePlan(c, p);
        ASSERT_TRUE(plan.stages.at(0).algo);
        const double hop = alpha + u * (beta + g / 1000) + rdv;
        const double r = theta + u * beta + rdv + u * g / 1000;
        const double want = std::max((n - 1) * hop, (n * alpha + (n - 1) * r) / cores);
        EXPECT_NEAR(plan.predUs, want, 1e-9 * want) << "gamma " << g << " ns/B: " << plan.describe();
    }
}

}  // namespace
