// reduce_scatter(_block)'s ring row (no root) on the simulator: results against the
// closed-form sum, (n - 1) messages per rank and pulse, untouched bytes past each
// block, bounded scratch, in-place (which keeps reduce + scatter), and the model's choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

int ringValue(hieragg_coll_kind k) { return hier::algorithmValue(*hier::algorithmByName(k, "ring")); }

struct Case {
    bool block = false;
    std::vector<int> rcounts;
    size_t segmentBytes = 1 << 16;
    bool inPlace = false;
};

// Returns the messages the run sent.
uint64_t check(int p, const hier::Hierarchy& h, const Case& k, const std::string& what) {
    const size_t total = std::accumulate(k.rcounts.begin(), k.rcounts.end(), size_t{0});
    std::vector<size_t> displ(p, 0);
    for (int j = 1; j < p; ++j) displ[j] = displ[j - 1] + k.rcounts[j - 1];
    std::vector<std::vector<int64_t>> in(p), out(p);
    std::vector<int64_t> sum(total, 0);
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, total);
        for (size_t i = 0; i < total; ++i) sum[i] += in[r][i];
        out[r] = k.inPlace ? in[r] : std::vector<int64_t>(k.rcounts[r] + 3, -7);
    }
    const hieragg_coll_kind kind = k.block ? HIERAGG_REDUCE_SCATTER_BLOCK : HIERAGG_REDUCE_SCATTER;
    sim::SimNetwork net(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        CollCall c = reductionCall(kind, r, p, &h, sumOp(), k.rcounts[0], k.segmentBytes, ringValue(kind));
        if (!k.block) c.args.rcounts = k.rcounts.data(), c.args.rcount = c.args.scount = 0;
        setBuffers(c, in[r], out[r], k.inPlace);
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << what << ": " << res.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u) << what;
    if (!res.ok) return 0;
    for (int r = 0; r < p; ++r) {
        EXPECT_EQ(std::vector<int64_t>(out[r].begin(), out[r].begin() + k.rcounts[r]),
                  std::vector<int64_t>(sum.begin() + displ[r], sum.begin() + displ[r] + k.rcounts[r]))
            << what << " rank " << r << " " << res.algorithms[r];
        if (!k.inPlace)
            for (size_t i = k.rcounts[r]; i < out[r].size(); ++i) EXPECT_EQ(out[r][i], -7) << what << " past the block";
        if (!k.inPlace && p > 1 && total > 0) EXPECT_EQ(res.algorithms[r], "ring-reduce-scatter") << what;
    }
    return net.totalMessages();
}

std::vector<int> uneven(int p) {
    std::vector<int> v(p);
    for (int j = 0; j < p; ++j) v[j] = 3 * ((j * 5 + 2) % 4);  // 0, 3, 6, 9: some owners get nothing
    return v;
}

}  // namespace

TEST(ReduceScatterRing, BlocksUnevenZerosPulsesInPlace) {
    for (int p = 1; p <= 9; ++p)
        for (const hier::Hierarchy& h : {hier::Hierarchy::flat(p), virtualNodes(p, 3), roundRobin(p, 2)}) {
            const std::string what = "p=" + std::to_string(p) + " groups=" + std::to_string(h.groupCount(0));
            for (size_t seg : {size_t{1} << 16, size_t{16}}) {
                check(p, h, {true, std::vector<int>(p, 5), seg}, what + " block");
                check(p, h, {false, uneven(p), seg}, what + " uneven");
                check(p, h, {false, uneven(p), seg, true}, what + " in place");
                check(p, h, {true, std::vector<int>(p, 0), seg}, what + " zero");
            }
        }
}

TEST(ReduceScatterRing, MessagesPerRankAndPulse) {
    for (int p : {2, 5, 8}) {
        const hier::Hierarchy flat = hier::Hierarchy::flat(p);
        // One pulse: n - 1 ring steps, every rank sends once per step.
        EXPECT_EQ(check(p, flat, {true, std::vector<int>(p, 5)}, "one pulse"), static_cast<uint64_t>(p * (p - 1)));
        // Pieces of 2 elements (16 B) over blocks of up to 9: ceil(9 / 2) = 5 pulses.
        const std::vector<int> counts = uneven(p);
        const int most = *std::max_element(counts.begin(), counts.end());
        EXPECT_EQ(check(p, flat, {false, counts, 16}, "pulses"), static_cast<uint64_t>(p * (p - 1) * ((most + 1) / 2)));
    }
}

TEST(ReduceScatterRing, ScratchIsTwoPiecesPerWindowSlot) {
    const int p = 6;
    const hier::Hierarchy flat = hier::Hierarchy::flat(p);
    sim::SimNetwork net(p);
    for (size_t count : {size_t{1} << 10, size_t{1} << 24}) {
        CollCall c = reductionCall(HIERAGG_REDUCE_SCATTER_BLOCK, 1, p, &flat, sumOp(), count, 8192,
                                   ringValue(HIERAGG_REDUCE_SCATTER_BLOCK));
        describeTypes(c, net.transport(1));
        // Two pieces of a segment in each of the kPulseWindow (8) slots.
        EXPECT_LE(recipes::buildSchedule(c).tempBytes(), 2u * 8u * 8192u) << count;
    }
}

TEST(ReduceScatterRing, ModelTakesTheRingForLongVectors) {
    const int p = 8;
    const hier::Hierarchy flat = hier::Hierarchy::flat(p);
    sim::SimNetwork net(p);
    CollCall c = reductionCall(HIERAGG_REDUCE_SCATTER_BLOCK, 0, p, &flat, sumOp(), size_t{1} << 16, 1 << 16);
    describeTypes(c, net.transport(0));
    const hier::Plan plan = hier::choosePlan(c, hier::CostParams::defaults());
    ASSERT_TRUE(plan.stages[0].algo);
    EXPECT_STREQ(plan.stages[0].algo->name, "ring") << plan.describe();
    // Non-commutative: refused, the ordered trees run.
    CollCall m = reductionCall(HIERAGG_REDUCE_SCATTER_BLOCK, 0, p, &flat, matmulOp(), size_t{1} << 16, 1 << 16);
    describeTypes(m, net.transport(0));
    for (const auto& s : hier::choosePlan(m, hier::CostParams::defaults()).stages)
        if (s.algo) EXPECT_STRNE(s.algo->name, "ring");
}
