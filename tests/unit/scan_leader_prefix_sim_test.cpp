// scan/exscan's leader_prefix row on the simulator: results in rank order (sum and the
// non-commutative 2x2 matrix product) on contiguous decompositions with uneven groups and
// groups of one, in place, zero counts, several pulses; only the group totals cross
// between groups; non-contiguous groups are refused (flat recursive doubling runs).
#include <gtest/gtest.h>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

int leaderPrefixValue(hieragg_coll_kind k) {
    return hier::algorithmValue(*hier::algorithmByName(k, "leader_prefix"));
}

// Runs the forced row; returns the messages between different outermost groups.
uint64_t check(int p, const hier::Hierarchy& h, sim::SimOp& op, bool exclusive, size_t count, size_t seg,
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
        CollCall c = reductionCall(kind, r, p, &h, op, count, seg, leaderPrefixValue(kind));
        setBuffers(c, in[r], out[r], inPlace);
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << what << ": " << res.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u) << what;
    if (!res.ok) return 0;
    if (algorithm) *algorithm = res.algorithms[0];
    for (int r = 0; r < p; ++r) {
        if (exclusive && r == 0) {
            EXPECT_EQ(out[0], inPlace ? in[0] : std::vector<int64_t>(count, -7)) << what << " rank 0 touched";
            continue;
        }
        if (count == 0) continue;
        EXPECT_EQ(out[r], rankOrderProduct(op, in, 0, exclusive ? r : r + 1)) << what << " rank " << r;
    }
    uint64_t cross = 0;
    const int top = h.levels() - 1;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
            if (h.groupOf(top, s) != h.groupOf(top, d)) cross += net.traffic(s, d).messages;
    return cross;
}

// Exclusive Hillis-Steele over G members: G - d messages at each distance d = 1, 2, 4, ...
uint64_t exscanMessages(int G) {
    uint64_t m = 0;
    for (int d = 1; d < G; d *= 2) m += static_cast<uint64_t>(G - d);
    return m;
}

}  // namespace

TEST(ScanLeaderPrefix, RankOrderOnContiguousGroups) {
    for (int p = 1; p <= 10; ++p)
        for (int block : {1, 2, 3, 4}) {
            const hier::Hierarchy h = virtualNodes(p, block);
            for (bool ex : {false, true})
                for (sim::SimOp* op : {&sumOp(), &matmulOp()}) {
                    const std::string what = std::string(ex ? "exscan" : "scan") + " p=" + std::to_string(p) +
                                             " virtual:" + std::to_string(block) +
                                             (op->commutative ? " sum" : " matmul");
                    check(p, h, *op, ex, 8, 1 << 16, false, what);
                    check(p, h, *op, ex, 12, 32, false, what + " pulses");   // 3 pulses of 4
                    check(p, h, *op, ex, 8, 1 << 16, true, what + " in place");
                    check(p, h, *op, ex, 0, 1 << 16, false, what + " zero");
                    if (::testing::Test::HasFatalFailure()) return;
                }
        }
    for (int p : {5, 9})
        for (bool ex : {false, true}) check(p, nestedNodes(p, 2, 4), matmulOp(), ex, 8, 1 << 16, false, "nested");
}

TEST(ScanLeaderPrefix, OnlyGroupTotalsCrossGroups) {
    for (auto [p, block] : {std::pair{8, 4}, std::pair{8, 2}, std::pair{10, 3}})
        for (bool ex : {false, true}) {
            const hier::Hierarchy h = virtualNodes(p, block);
            std::string algorithm;
            const uint64_t cross = check(p, h, sumOp(), ex, 8, 1 << 16, false, "count", &algorithm);
            EXPECT_EQ(algorithm, ex ? "leader-prefix-exscan" : "leader-prefix-scan");
            EXPECT_EQ(cross, exscanMessages(h.groupCount(0))) << "p=" << p << " block " << block;
        }
}

TEST(ScanLeaderPrefix, NonContiguousGroupsAreRefused) {
    const int p = 6;
    const hier::Hierarchy rr = roundRobin(p, 2);
    CollCall c = reductionCall(HIERAGG_SCAN, 0, p, &rr, sumOp(), 8, 1 << 16, leaderPrefixValue(HIERAGG_SCAN));
    EXPECT_EQ(hier::unmetNeed(*hier::algorithmByName(HIERAGG_SCAN, "leader_prefix"), c), "needs contiguous groups");
    std::string algorithm;
    check(p, rr, matmulOp(), false, 8, 1 << 16, false, "round robin", &algorithm);
    EXPECT_EQ(algorithm, "flat-recursive-doubling-scan");
}

// Across nodes the model takes a leader row: the chain (its messages all go to higher ranks,
// so back-to-back calls overlap; scan_leader_chain_sim_test.cpp), not the flat butterfly; the
// leader prefix runs when forced. One node: recursive doubling.
TEST(ScanLeaderPrefix, ModelTakesALeaderRowAcrossNodes) {
    const int p = 8;
    const hier::Hierarchy h = virtualNodes(p, 4);
    sim::SimNetwork net(p);
    CollCall c = reductionCall(HIERAGG_SCAN, 0, p, &h, sumOp(), 8, 1 << 16);
    describeTypes(c, net.transport(0));
    const hier::Plan plan = hier::choosePlan(c, hier::CostParams::defaults());
    ASSERT_TRUE(plan.stages[0].algo);
    EXPECT_STREQ(plan.stages[0].algo->name, "leader_chain") << plan.describe();
    CollCall forced = c;
    forced.algorithm = leaderPrefixValue(HIERAGG_SCAN);
    EXPECT_STREQ(hier::choosePlan(forced, hier::CostParams::defaults()).stages[0].algo->name, "leader_prefix");
    const hier::Hierarchy flat = hier::Hierarchy::flat(p);
    CollCall f = reductionCall(HIERAGG_SCAN, 0, p, &flat, sumOp(), 8, 1 << 16);
    describeTypes(f, net.transport(0));
    EXPECT_STREQ(hier::choosePlan(f, hier::CostParams::defaults()).stages[0].algo->name, "recursive_doubling");
}
