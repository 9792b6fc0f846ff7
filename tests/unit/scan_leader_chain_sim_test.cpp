// scan/exscan's leader_chain row on the simulator: results in rank order (sum and the
// non-commutative 2x2 matrix product) on contiguous decompositions with uneven groups and
// groups of one, in place, zero counts, several pulses; every message goes from a lower
// to a higher rank (what lets back-to-back calls overlap), and G - 1 messages per pulse
// cross between groups. The model takes it at 8 B over 4 nodes x 2 ranks with the
// emulated cluster's measured network (closed-form prices below).
#include <gtest/gtest.h>

#include <cmath>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

int chainValue(hieragg_coll_kind k) { return hier::algorithmValue(*hier::algorithmByName(k, "leader_chain")); }

struct Traffic {
    uint64_t cross = 0;     // messages between different outermost groups
    uint64_t backward = 0;  // messages from a higher rank to a lower one
};

Traffic check(int p, const hier::Hierarchy& h, sim::SimOp& op, bool exclusive, size_t count, size_t seg,
              bool inPlace, const std::string& what, std::string* algorithm = nullptr) {
    const hieragg_coll_kind kind = exclusive ? HIERAGG_EXSCAN : HIERAGG_SCAN;
    std::vector<std::vector<int64_t>> in(p), out(p);
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, count);
        out[r] = inPlace ? in[r] : std::vector<int64_t>(count, -7);
    }
    sim::SimNetwork net(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        CollCall c = reductionCall(kind, r, p, &h, op, count, seg, chainValue(kind));
        setBuffers(c, in[r], out[r], inPlace);
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << what << ": " << res.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u) << what;
    Traffic t;
    if (!res.ok) return t;
    if (algorithm) *algorithm = res.algorithms[0];
    for (int r = 0; r < p; ++r) {
        if (exclusive && r == 0) {
            EXPECT_EQ(out[0], inPlace ? in[0] : std::vector<int64_t>(count, -7)) << what << " rank 0 touched";
            continue;
        }
        if (count == 0) continue;
        EXPECT_EQ(out[r], rankOrderProduct(op, in, 0, exclusive ? r : r + 1)) << what << " rank " << r;
    }
    const int top = h.levels() - 1;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d) {
            const uint64_t m = net.traffic(s, d).messages;
            if (h.groupOf(top, s) != h.groupOf(top, d)) t.cross += m;
            if (s > d) t.backward += m;
        }
    return t;
}

CollCall modelCall(int p, const hier::Hierarchy& h, sim::SimNetwork& net) {
    CollCall c = reductionCall(HIERAGG_SCAN, 0, p, &h, sumOp(), 1, 1 << 16);  // one int64: 8 B
    describeTypes(c, net.transport(0));
    return c;
}

// The emulated cluster's network as the calibration measures it (alpha 100 us, 10.7 ns/B).
hier::CostParams emulatedNetwork() {
    hier::CostParams p = hier::CostParams::defaults();
    p.link[hier::kLinkNetwork].alpha_us = 100;
    p.link[hier::kLinkNetwork].beta_us_per_byte = 0.0107;
    return p;
}

}  // namespace

TEST(ScanLeaderChain, RankOrderOnContiguousGroups) {
    for (int p = 1; p <= 10; ++p)
        for (int block : {1, 2, 3, 4}) {
            const hier::Hierarchy h = virtualNodes(p, block);
            for (bool ex : {false, true})
                for (sim::SimOp* op : {&sumOp(), &matmulOp()}) {
                    const std::string what = std::string(ex ? "exscan" : "scan") + " p=" + std::to_string(p) +
                                             " virtual:" + std::to_string(block) +
                                             (op->commutative ? " sum" : " matmul");
                    check(p, h, *op, ex, 8, 1 << 16, false, what);
                    check(p, h, *op, ex, 12, 32, false, what + " pulses");  // 3 pulses of 4
                    check(p, h, *op, ex, 8, 1 << 16, true, what + " in place");
                    check(p, h, *op, ex, 0, 1 << 16, false, what + " zero");
                    if (::testing::Test::HasFatalFailure()) return;
                }
        }
    for (int p : {5, 9})
        for (bool ex : {false, true}) check(p, nestedNodes(p, 2, 4), matmulOp(), ex, 8, 1 << 16, false, "nested");
}

TEST(ScanLeaderChain, EveryMessageGoesToAHigherRankAndGroupsPassOnePrefix) {
    for (auto [p, block] : {std::pair{8, 4}, std::pair{8, 2}, std::pair{10, 3}, std::pair{7, 3}})
        for (bool ex : {false, true}) {
            const hier::Hierarchy h = virtualNodes(p, block);
            const int groups = (p + block - 1) / block;
            std::string algorithm;
            const Traffic one = check(p, h, sumOp(), ex, 8, 1 << 16, false, "one pulse", &algorithm);
            EXPECT_EQ(algorithm, ex ? "leader-chain-exscan" : "leader-chain-scan");
            EXPECT_EQ(one.backward, 0u) << "p=" << p << " block " << block;
            EXPECT_EQ(one.cross, static_cast<uint64_t>(groups - 1)) << "p=" << p << " block " << block;
            const Traffic three = check(p, h, sumOp(), ex, 12, 32, false, "3 pulses");
            EXPECT_EQ(three.backward, 0u);
            EXPECT_EQ(three.cross, 3u * static_cast<uint64_t>(groups - 1));
        }
}

TEST(ScanLeaderChain, NonContiguousGroupsAreRefused) {
    const int p = 6;
    const hier::Hierarchy rr = roundRobin(p, 2);
    CollCall c = reductionCall(HIERAGG_SCAN, 0, p, &rr, sumOp(), 8, 1 << 16, chainValue(HIERAGG_SCAN));
    EXPECT_EQ(hier::unmetNeed(*hier::algorithmByName(HIERAGG_SCAN, "leader_chain"), c), "needs contiguous groups");
    std::string algorithm;
    check(p, rr, matmulOp(), false, 8, 1 << 16, false, "round robin", &algorithm);
    EXPECT_EQ(algorithm, "flat-recursive-doubling-scan");
}

// 8 ranks as 4 nodes x 2 (block), 8 B, measured network: a stream of calls overlaps the
// chain's crossings, while the leader prefix's bcast back into the group makes each call
// wait for two exscan rounds across the network.
TEST(ScanLeaderChain, ModelTakesItAt8BytesOnFourNodesOfTwo) {
    const int p = 8;
    const hier::Hierarchy h = virtualNodes(p, 2);
    sim::SimNetwork net(p);
    const CollCall c = modelCall(p, h, net);
    const hier::CostParams params = emulatedNetwork();
    const hier::Plan plan = hier::choosePlan(c, params);
    ASSERT_EQ(plan.stages.size(), 1u);
    ASSERT_TRUE(plan.stages[0].algo);
    EXPECT_STREQ(plan.stages[0].algo->name, "leader_chain") << plan.describe();
    // Closed form, S = 8 B, groups of M = 2 (1 in-group round), G = 4.
    const hier::LinkCost& in = params.link[hier::kLinkNode];
    const hier::LinkCost& nw = params.link[hier::kLinkNetwork];
    const double S = 8;
    const double inMsg = in.theta_us + S * in.beta_us_per_byte, netMsg = nw.theta_us + S * nw.beta_us_per_byte;
    const double chainStream = (2 * inMsg + S * in.gamma_us_per_byte) + 2 * netMsg + inMsg +
                               S * in.gamma_us_per_byte + nw.alpha_us;
    EXPECT_NEAR(plan.predUs, chainStream, 1e-9) << plan.describe();
    // The leader prefix: 1 in-group round, 2 exscan rounds between the 4 leaders, 1 bcast round.
    const double inRound = in.alpha_us + in.theta_us + S * in.beta_us_per_byte;
    const double netRound = nw.alpha_us + nw.theta_us + S * (nw.beta_us_per_byte + nw.gamma_us_per_byte);
    const double prefix = (inRound + S * in.gamma_us_per_byte) + 2 * netRound + inRound + S * in.gamma_us_per_byte;
    EXPECT_GT(prefix, 1.9 * plan.predUs);
}

// Over 8 nodes a lone chain makes 7 crossings, more than twice the exscan's 3: the chain is
// priced by its latency and loses.
TEST(ScanLeaderChain, ModelKeepsItOffManyGroups) {
    const int p = 16;
    const hier::Hierarchy h = virtualNodes(p, 2);
    sim::SimNetwork net(p);
    const hier::Plan plan = hier::choosePlan(modelCall(p, h, net), emulatedNetwork());
    ASSERT_TRUE(plan.stages[0].algo);
    EXPECT_STRNE(plan.stages[0].algo->name, "leader_chain") << plan.describe();
}
