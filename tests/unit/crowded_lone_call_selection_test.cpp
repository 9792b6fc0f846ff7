// One node with more ranks than cores: bcast, reduce, scan and exscan are priced as one lone
// call (model/SharedCoresModel.hpp, loneCrowdedCall), the larger of the row's critical path
// and its ranks' turns on the cores, (n alpha + work) / cores; what the busiest rank handles
// per call, max(busiest, work / cores), only orders equal prices. References are closed forms
// of the inputs (alpha, theta, beta, gamma, the cores), from each shape's messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "OversubscribedNodeCosts.hpp"
#include "SimFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/OversubscribedNode.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int kCores = 2;

// The node link as the setup measures it on a crowded node (a hand-off alpha of tens of us
// and more, theta 0.1-0.5 us), n ranks on kCores cores.
hier::CostParams crowdedNode(int n, double alpha, double theta, double beta) {
    hier::CostParams p = oversubscribedNodeCosts(n, kCores);
    hier::LinkCost& l = p.link[hier::kLinkNode];
    l.alpha_us = alpha;
    l.theta_us = theta;
    l.beta_us_per_byte = beta;
    return p;
}

// Rank 0's call of `kind` over S bytes of int64 on one node of n ranks (no decomposition),
// 64 KiB segments.
CollCall oneNodeCall(hieragg_coll_kind kind, int n, double S, const char* forced = nullptr) {
    CollCall c = baseCall(kind, 0, n, nullptr);
    c.args.rcount = static_cast<size_t>(S) / 8;
    c.args.op_commutative = 1;
    c.rtype = {8, 0, 8, 0, 8};
    c.segmentBytes = 65536;
    if (forced) c.algorithm = hier::algorithmValue(*hier::algorithmByName(kind, forced));
    return c;
}

struct Case {
    int n;
    double alpha, theta;
};
const Case kCases[] = {{4, 7.0, 0.1}, {4, 14.2, 0.46}, {8, 17.1, 0.37}, {8, 35.2, 0.1}, {8, 184.9, 0.46}};

std::string traceOf(const Case& k, const hier::Plan& plan) {
    return "n=" + std::to_string(k.n) + " alpha=" + std::to_string(k.alpha) + " theta=" + std::to_string(k.theta) +
           ": " + plan.describe();
}

// Bcast of 8 B: every rank's turn is a hand-off and each receiver copies S (theta + S beta),
// so no tree beats the turns, (n alpha + (n - 1)(theta + S beta)) / 2: 2 alpha + ... on 4
// ranks, 4 alpha + ... on 8, where the binomial's critical path is 3 hops and the star's one.
// On 8 ranks every tree of depth <= 3 is priced there, and the busiest rank breaks the tie:
// not the star (its root posts 7 sends, 7 theta, above every rank's receptions over the
// cores). On 4 ranks the star's critical path (alpha + S beta + 3 theta) is the only one
// under the turns (a binomial's is 2 alpha + 2 S beta + 2 theta): the star. The chain's
// critical path, (n - 1)(alpha + theta + S beta), is above the turns: priced by it.
TEST(CrowdedLoneCall, BcastOfFewBytesCostsTheRanksTurns) {
    const double S = 8, beta = 1.7e-3;
    for (const Case& k : kCases) {
        const hier::CostParams p = crowdedNode(k.n, k.alpha, k.theta, beta);
        const hier::Plan plan = hier::choosePlan(oneNodeCall(HIERAGG_BCAST, k.n, S), p);
        ASSERT_TRUE(plan.stages.at(0).algo);
        SCOPED_TRACE(traceOf(k, plan));
        const double turns = (k.n * k.alpha + (k.n - 1) * (k.theta + S * beta)) / kCores;
        EXPECT_NEAR(plan.predUs, turns, 1e-12 * turns);
        const MemberTree t = plan.stages[0].shape.build(k.n, 0);
        if (k.n == 8) {
            EXPECT_LE(t.children[t.root].size(), 3u) << "not the star";
            // The tie-break: every rank's receptions over the cores (above the tree's busiest rank).
            EXPECT_NEAR(plan.tieUs, (k.n - 1) * (k.theta + S * beta) / kCores, 1e-12);
        } else {
            EXPECT_EQ(t.children[t.root].size(), static_cast<size_t>(k.n - 1)) << "the star";
        }
        const hier::Plan chain = hier::choosePlan(oneNodeCall(HIERAGG_BCAST, k.n, S, "chain"), p);
        const double chainPath = (k.n - 1) * (k.alpha + k.theta + S * beta);
        EXPECT_NEAR(chain.predUs, chainPath, 1e-12 * chainPath) << chain.describe();
        EXPECT_GT(chain.predUs, plan.predUs);
    }
}

// The third key (PredictedCost::fanUs, largestFanUs). 8 B on 8 ranks of 2 cores: the binomial
// tree (knomial, k = 2) and the binary tree (kary, k = 2) are priced alike to the bit, the
// turns (8 alpha + 7 r) / 2, and share the tie-break, the receptions over the cores 7 r / 2
// (r = theta + S beta for bcast; b = theta + S (beta + gamma) for reduce): each one's
// busiest rank handles 3 messages (bcast 3 theta + S beta; reduce the binomial root's 3 b,
// the binary rank 1's 2 b + theta), under 3.5 r. Their largest fans differ: the binomial root
// posts 3 messages in one direction (3 theta), every binary-tree rank at most 2 (2 theta). The
// chooser runs the binary tree; and the star (fan 7) stays out on the second key already.
TEST(CrowdedLoneCall, EqualPricesAndSharesGoToTheSmallerFan) {
    const double S = 8, beta = 1.7e-3;
    for (const Case& k : kCases) {
        if (k.n != 8) continue;
        const hier::CostParams p = crowdedNode(k.n, k.alpha, k.theta, beta);
        const hier::LinkCost& l = p.link[hier::kLinkNode];
        for (hieragg_coll_kind kind : {HIERAGG_BCAST, HIERAGG_REDUCE}) {
            const double r = kind == HIERAGG_BCAST ? l.theta_us + S * l.beta_us_per_byte
                                                   : l.theta_us + S * (l.beta_us_per_byte + l.gamma_us_per_byte);
            const double turns = (k.n * k.alpha + (k.n - 1) * r) / kCores, share = (k.n - 1) * r / kCores;
            const hier::Plan binomial = hier::choosePlan(oneNodeCall(kind, k.n, S, "knomial"), p);
            const hier::Plan binary = hier::choosePlan(oneNodeCall(kind, k.n, S, "kary"), p);
            const hier::Plan plan = hier::choosePlan(oneNodeCall(kind, k.n, S), p);
            SCOPED_TRACE(traceOf(k, plan) + " " + hieragg_coll_name(kind));
            ASSERT_EQ(binomial.stages.at(0).shape.build(k.n, 0).children[0].size(), 3u) << binomial.describe();
            ASSERT_EQ(binary.stages.at(0).shape.build(k.n, 0).children[0].size(), 2u) << binary.describe();
            for (const hier::Plan* t : {&binomial, &binary}) {
                EXPECT_NEAR(t->predUs, turns, 1e-12 * turns) << t->describe();
                EXPECT_NEAR(t->tieUs, share, 1e-12 * share) << t->describe();
            }
            EXPECT_EQ(binomial.predUs, binary.predUs);
            EXPECT_EQ(binomial.tieUs, binary.tieUs);
            EXPECT_NEAR(binomial.fanUs, 3 * l.theta_us, 1e-12);
            EXPECT_NEAR(binary.fanUs, 2 * l.theta_us, 1e-12);
            ASSERT_TRUE(plan.stages.at(0).algo);
            EXPECT_EQ(plan.stages[0].algo->name, std::string("kary")) << plan.describe();
            EXPECT_EQ(plan.stages[0].shape.build(k.n, 0).children[0].size(), 2u) << plan.describe();
            EXPECT_NEAR(plan.predUs, turns, 1e-12 * turns);
            EXPECT_NEAR(plan.fanUs, 2 * l.theta_us, 1e-12);
        }
    }
}

// Reduce of 8 B (one pulse): a reception combines, b = theta + S (beta + gamma). The turns,
// (n alpha + (n - 1) b) / 2, are above every tree's critical path of depth <= 3 (a hop
// alpha + b), so they are the price; the chain's critical path, (n - 1)(alpha + b), is above
// them. On more cores than ranks the lone call's latency model is kept (no turns).
TEST(CrowdedLoneCall, ReduceOfFewBytesCostsTheRanksTurns) {
    const double S = 8, beta = 1.7e-3;
    for (const Case& k : kCases) {
        const hier::CostParams p = crowdedNode(k.n, k.alpha, k.theta, beta);
        const hier::LinkCost& l = p.link[hier::kLinkNode];
        const hier::Plan plan = hier::choosePlan(oneNodeCall(HIERAGG_REDUCE, k.n, S), p);
        ASSERT_TRUE(plan.stages.at(0).algo);
        SCOPED_TRACE(traceOf(k, plan));
        const double b = l.theta_us + S * (l.beta_us_per_byte + l.gamma_us_per_byte);
        const double turns = (k.n * k.alpha + (k.n - 1) * b) / kCores;
        EXPECT_NEAR(plan.predUs, turns, 1e-12 * turns);
        const hier::Plan chain = hier::choosePlan(oneNodeCall(HIERAGG_REDUCE, k.n, S, "chain"), p);
        const double chainPath = (k.n - 1) * (k.alpha + b);
        EXPECT_NEAR(chain.predUs, std::max(chainPath, turns), 1e-12 * chainPath) << chain.describe();
    }
    hier::CostParams roomy = crowdedNode(8, 17.1, 0.37, 1.7e-3);
    roomy.nodeCores = 8;
    const hier::Plan quiet = hier::choosePlan(oneNodeCall(HIERAGG_REDUCE, 8, S), roomy);
    EXPECT_EQ(quiet.stages.at(0).why.find("cores shared"), std::string::npos) << quiet.describe();
    EXPECT_LT(quiet.predUs, (8 * 17.1) / kCores) << "no turns on a roomy node";
}

// Scan and exscan, S bytes in pulses of u = min(S, 64 KiB), P of them, a reception
// r = theta + u (beta + gamma). Critical paths: recursive doubling log2 n exchange rounds of
// the whole vector, lg (E + S (beta + gamma)); the chain n - 1 + P - 1 hops of a pulse,
// alpha + u (beta + gamma) each. Turns: (n alpha + work) / 2, work = all receptions: the
// chain's (n - 1) P r, recursive doubling's sum over d of (n - d) P r. Each row is priced by
// the larger; equal prices ordered by the busiest rank (the chain's middle rank: P(theta + r);
// recursive doubling's rank n/2: P((lg - 1) theta + lg r)) against the work over the cores.
TEST(CrowdedLoneCall, ScanIsTheLargerOfItsPathAndTheTurns) {
    for (hieragg_coll_kind kind : {HIERAGG_SCAN, HIERAGG_EXSCAN})
        for (const Case& k : kCases)
            for (double S : {8.0, 65536.0, 4194304.0}) {
                const hier::CostParams p = crowdedNode(k.n, k.alpha, k.theta, 0.1e-3);
                const hier::LinkCost& l = p.link[hier::kLinkNode];
                const hier::Plan plan = hier::choosePlan(oneNodeCall(kind, k.n, S), p);
                ASSERT_TRUE(plan.stages.at(0).algo);
                SCOPED_TRACE(traceOf(k, plan) + " S=" + std::to_string(S));
                const double bg = l.beta_us_per_byte + l.gamma_us_per_byte, lg = std::log2(k.n);
                const double E = l.exchange_us >= 0 ? l.exchange_us : l.alpha_us + l.theta_us;
                const double pulses = std::max(1.0, std::ceil(S / 65536)), u = std::min(S, 65536.0);
                const double r = l.theta_us + u * bg;
                double doublingMsgs = 0;
                for (int d = 1; d < k.n; d *= 2) doublingMsgs += k.n - d;
                const hier::PredictedCost doubling{
                    std::max(lg * (E + S * bg), (k.n * k.alpha + doublingMsgs * pulses * r) / kCores),
                    std::max(pulses * ((lg - 1) * l.theta_us + lg * r), doublingMsgs * pulses * r / kCores)};
                const hier::PredictedCost chain{
                    std::max((k.n - 1 + pulses - 1) * (k.alpha + u * bg), (k.n * k.alpha + (k.n - 1) * pulses * r) / kCores),
                    std::max(pulses * (l.theta_us + r), (k.n - 1) * pulses * r / kCores)};
                const bool chainWins = chain < doubling;
                EXPECT_EQ(plan.stages[0].algo->name, std::string(chainWins ? "linear" : "recursive_doubling"));
                const hier::PredictedCost& won = chainWins ? chain : doubling;
                EXPECT_NEAR(plan.predUs, won.us, 1e-12 * won.us);
                EXPECT_NEAR(plan.tieUs, won.tieUs, 1e-12 * won.tieUs);
                if (S == 8) {
                    // Few bytes: 3 rounds against 7 hops on 8 ranks, and the turns (n alpha / 2)
                    // above recursive doubling's rounds: recursive doubling, at the turns.
                    EXPECT_EQ(plan.stages[0].algo->name, std::string("recursive_doubling"));
                    if (k.n == 8) EXPECT_NEAR(plan.predUs, (k.n * k.alpha + doublingMsgs * r) / kCores, 1e-9);
                }
            }
}

}  // namespace
