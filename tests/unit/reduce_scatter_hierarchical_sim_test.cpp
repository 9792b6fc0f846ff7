// reduce_scatter(_block)'s `hierarchical` row (leaders' ring of node blocks, no root) on
// the simulator: results against the closed-form sum for block, uneven (zeros), in-place
// and all-zero counts over virtual, nested and round-robin decompositions and several
// pulse sizes; only leaders cross groups, one node block per leader, ring step and pulse;
// scratch bounded whatever the count; the model's choice (and refusal when not commutative).
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

const hier::AlgorithmInfo& row(hieragg_coll_kind k) { return *hier::algorithmByName(k, "hierarchical"); }

struct Case {
    bool block = false;
    std::vector<int> rcounts;
    size_t segmentBytes = 1 << 16;
    bool inPlace = false;
};

// Runs the forced row; returns the messages between different outermost groups (-1: refused).
int64_t check(int p, const hier::Hierarchy& h, const Case& k, const std::string& what) {
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
        CollCall c = reductionCall(kind, r, p, &h, sumOp(), k.rcounts[0], k.segmentBytes,
                                   hier::algorithmValue(row(kind)));
        if (!k.block) c.args.rcounts = k.rcounts.data(), c.args.rcount = c.args.scount = 0;
        c.args.sbuf = k.inPlace ? nullptr : in[r].data();
        c.args.in_place = k.inPlace;
        c.args.rbuf = out[r].data();
        calls.push_back(c);
    }
    if (!hier::unmetNeed(row(kind), calls[0]).empty()) return -1;
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
        if (total > 0) EXPECT_EQ(res.algorithms[r], "leader-ring-reduce-scatter") << what;
    }
    const int top = h.levels() - 1;
    int64_t cross = 0;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
            if (h.groupOf(top, s) != h.groupOf(top, d) && net.traffic(s, d).messages > 0) {
                EXPECT_EQ(h.groupMembers(top, h.groupOf(top, s)).front(), s) << what << ": a non-leader crossed";
                cross += static_cast<int64_t>(net.traffic(s, d).messages);
            }
    return cross;
}

std::vector<int> uneven(int p) {
    std::vector<int> v(p);
    for (int j = 0; j < p; ++j) v[j] = 3 * ((j * 5 + 2) % 4);  // 6, 3, 0, 9, ...: some owners get nothing
    return v;
}

}  // namespace

TEST(ReduceScatterHierarchical, EveryDecompositionBlocksUnevenZerosPulsesInPlace) {
    for (int p = 2; p <= 9; ++p)
        for (const hier::Hierarchy& h : {virtualNodes(p, 3), virtualNodes(p, 4), roundRobin(p, 2), roundRobin(p, 3),
                                         nestedNodes(p, 2, 4)}) {
            const std::string what = "p=" + std::to_string(p) + " groups=" + std::to_string(h.groupCount(0)) +
                                     " levels=" + std::to_string(h.levels());
            // 64 KiB: one pulse; 16 B: one element per piece (many pulses, past the window).
            for (size_t seg : {size_t{1} << 16, size_t{16}}) {
                if (check(p, h, {true, std::vector<int>(p, 5), seg}, what + " block") < 0) break;
                check(p, h, {false, uneven(p), seg}, what + " uneven");
                check(p, h, {false, uneven(p), seg, true}, what + " in place");
                check(p, h, {true, std::vector<int>(p, 5), seg, true}, what + " block in place");
                check(p, h, {true, std::vector<int>(p, 0), seg}, what + " zero");
            }
        }
}

TEST(ReduceScatterHierarchical, OneNodeBlockPerLeaderRingStepAndPulse) {
    // G leaders, G - 1 ring steps each, one message per step and pulse; nothing else crosses.
    for (auto [p, h] : {std::pair{8, roundRobin(8, 2)}, std::pair{8, virtualNodes(8, 2)}, std::pair{7, virtualNodes(7, 3)},
                        std::pair{9, roundRobin(9, 3)}}) {
        const int G = h.groupCount(0);
        EXPECT_EQ(check(p, h, {true, std::vector<int>(p, 5)}, "one pulse"), G * (G - 1)) << p << " " << G;
        // 64-byte segments (8 elements) over groups of up to 4 (or 3): pieces of 2, blocks of 9.
        const int widest = (p + G - 1) / G, piece = std::max(1, 8 / widest);
        const std::vector<int> counts(p, 9);
        const int pulses = (9 + piece - 1) / piece;
        EXPECT_EQ(check(p, h, {true, counts, 64}, "pulses"), G * (G - 1) * pulses) << p << " " << G;
    }
}

TEST(ReduceScatterHierarchical, ScratchStaysBoundedForHugeCounts) {
    const int p = 8;
    const hier::Hierarchy h = roundRobin(p, 2);
    sim::SimNetwork net(p);
    const int value = hier::algorithmValue(row(HIERAGG_REDUCE_SCATTER_BLOCK));
    for (int r : {0, 1, 2}) {
        size_t previous = 0;
        for (size_t count : {size_t{1} << 16, size_t{1} << 20, size_t{1} << 24}) {
            CollCall c = reductionCall(HIERAGG_REDUCE_SCATTER_BLOCK, r, p, &h, sumOp(), count, 8192, value);
            describeTypes(c, net.transport(r));
            const size_t bytes = recipes::buildSchedule(c).tempBytes();
            // Window 8 x (pulse vector of G segments: pack + binomial children of 4 members + node block).
            EXPECT_LE(bytes, 8u * (3u * 2u * 8192u + 8192u)) << count;
            if (previous) EXPECT_EQ(bytes, previous) << "scratch grew with the count";
            previous = bytes;
        }
    }
}

TEST(ReduceScatterHierarchical, ModelTakesItOverSlowLinksAndNeverForNonCommutativeOps) {
    const int p = 8;
    sim::SimNetwork net(p);
    // The emulated cluster's links as measured (docs/performance.md): 84 us, 116 MB/s.
    hier::CostParams slow = hier::CostParams::defaults();
    slow.link[hier::kLinkNetwork].alpha_us = 84;
    slow.link[hier::kLinkNetwork].beta_us_per_byte = 1.0 / 116;
    struct Setting {
        hier::Hierarchy h;
        hier::CostParams params;
        const char* what;
    };
    // Round robin: every flat ring hop leaves the node, so even the default (fast) network
    // favours the leaders; block placement needs the slow network (the flat ring then sends
    // one hop per step out of each node, and the leader's reduce of the whole pulse costs).
    for (const Setting& s : {Setting{roundRobin(p, 2), hier::CostParams::defaults(), "2x4 round robin, defaults"},
                             Setting{roundRobin(p, 2), slow, "2x4 round robin, slow network"},
                             Setting{virtualNodes(p, 2), slow, "4x2 block, slow network"}})
        for (size_t count : {size_t{1}, size_t{8192}, size_t{1} << 19}) {  // 8 B, 64 KiB, 4 MiB per rank
            CollCall c = reductionCall(HIERAGG_REDUCE_SCATTER_BLOCK, 0, p, &s.h, sumOp(), count, 1 << 16);
            describeTypes(c, net.transport(0));
            const hier::Plan plan = hier::choosePlan(c, s.params);
            ASSERT_TRUE(plan.stages[0].algo);
            // 8 B over 4 leaders: the trees' reduce + scatter (two network start-ups) beat the
            // leaders' 3 dependent ring steps; never the flat ring's 7.
            if (count == 1 && s.h.groupCount(0) == 4)
                EXPECT_STRNE(plan.stages[0].algo->name, "ring") << s.what << "\n" << plan.describe();
            else
                EXPECT_STREQ(plan.stages[0].algo->name, "hierarchical") << s.what << " " << count << "\n"
                                                                        << plan.describe();
            CollCall m = reductionCall(HIERAGG_REDUCE_SCATTER_BLOCK, 0, p, &s.h, matmulOp(), count, 1 << 16);
            describeTypes(m, net.transport(0));
            for (const auto& st : hier::choosePlan(m, s.params).stages)
                if (st.algo) EXPECT_STRNE(st.algo->name, "hierarchical");
            EXPECT_FALSE(hier::unmetNeed(row(HIERAGG_REDUCE_SCATTER_BLOCK), m).empty());
        }
    // 8 B on 2 x 4 round robin: the root's scatter sends leave at once (one start-up), so the
    // trees no longer lose to the flat ring's n - 1 dependent steps over the network.
    {
        const hier::Hierarchy h = roundRobin(p, 2);
        CollCall c = reductionCall(HIERAGG_REDUCE_SCATTER_BLOCK, 0, p, &h, sumOp(), 1, 1 << 16);
        describeTypes(c, net.transport(0));
        hier::CostParams noLeaders = slow;
        const int ring = hier::algorithmValue(*hier::algorithmByName(HIERAGG_REDUCE_SCATTER_BLOCK, "ring"));
        c.algorithm = ring;
        const double ringUs = hier::choosePlan(c, noLeaders).predUs;
        c.algorithm = hier::algorithmValue(*hier::algorithmByName(HIERAGG_REDUCE_SCATTER_BLOCK, "knomial"));
        const double treeUs = hier::choosePlan(c, noLeaders).predUs;
        EXPECT_GT(ringUs, 7 * 84.0);
        EXPECT_LT(treeUs + 3 * 84.0, ringUs) << "reduce + scatter is about 2 network start-ups, the ring 7";
    }
    // No decomposition: refused (flat rows only).
    const hier::Hierarchy flat = hier::Hierarchy::flat(p);
    CollCall f = reductionCall(HIERAGG_REDUCE_SCATTER, 0, p, &flat, sumOp(), 0, 1 << 16);
    EXPECT_FALSE(hier::unmetNeed(row(HIERAGG_REDUCE_SCATTER), f).empty());
}
