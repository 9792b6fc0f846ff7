#include <gtest/gtest.h>

#include <algorithm>

#include "SimFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

struct BcastCase {
    int size;
    int block;     // 0 = flat
    int algorithm; // 0 auto, 1 knomial, 2 chain, 3 flat
    size_t count;
    size_t segmentBytes;
};

// Runs a broadcast from every root and checks every rank got the root's data.
void checkBcast(const BcastCase& k) {
    hier::Hierarchy h = k.block ? virtualNodes(k.size, k.block) : hier::Hierarchy::flat(k.size);
    for (int root = 0; root < k.size; ++root) {
        sim::SimNetwork net(k.size);
        std::vector<std::vector<int64_t>> bufs(k.size, std::vector<int64_t>(k.count, -1));
        for (size_t i = 0; i < k.count; ++i) bufs[root][i] = 1000 * root + static_cast<int64_t>(i);
        std::vector<CollCall> calls;
        for (int r = 0; r < k.size; ++r) {
            CollCall c = baseCall(HIERAGG_BCAST, r, k.size, &h);
            c.args.rbuf = bufs[r].data();
            c.args.rcount = k.count;
            c.args.stype = c.args.rtype = &int64Type();
            c.args.root = root;
            c.algorithm = k.algorithm;
            c.segmentBytes = k.segmentBytes;
            calls.push_back(c);
        }
        auto res = sim::runOne(net, calls, recipeBuilder());
        ASSERT_TRUE(res.ok) << res.error << " size=" << k.size << " root=" << root;
        for (int r = 0; r < k.size; ++r)
            for (size_t i = 0; i < k.count; ++i)
                ASSERT_EQ(bufs[r][i], 1000 * root + static_cast<int64_t>(i)) << "rank " << r << " elem " << i;
    }
}

}  // namespace

TEST(BcastSim, FlatAllSizes) {
    for (int p = 1; p <= 9; ++p) checkBcast({p, 0, 0, 5, 1 << 16});
}

TEST(BcastSim, HierarchicalUnevenBlocks) {
    for (int p = 1; p <= 9; ++p)
        for (int block : {1, 2, 3, 4}) checkBcast({p, block, 0, 7, 1 << 16});
}

TEST(BcastSim, ChainPipelinesSegments) {
    for (int p : {2, 3, 5, 8}) checkBcast({p, 0, 2, 100, 8 * 7});
    for (int p : {4, 7}) checkBcast({p, 2, 2, 100, 8 * 9});
}

TEST(BcastSim, ZeroCount) {
    for (int p : {1, 2, 5}) checkBcast({p, 2, 0, 0, 1 << 16});
}

TEST(BcastSim, OnlyOneMessageCrossesEachNodeBoundary) {
    // 2 virtual nodes x 4 ranks, round-robin placement as in the published setup:
    // the decomposition sends exactly one message between the two node groups.
    const int p = 8;
    hier::Hierarchy h = roundRobin(p, 2);
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> bufs(p, std::vector<int64_t>(4, 0));
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        CollCall c = baseCall(HIERAGG_BCAST, r, p, &h);
        c.args.rbuf = bufs[r].data();
        c.args.rcount = 4;
        c.args.stype = c.args.rtype = &int64Type();
        c.args.root = 0;
        calls.push_back(c);
    }
    ASSERT_TRUE(sim::runOne(net, calls, recipeBuilder()).ok);
    uint64_t crossing = 0;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
            if (s % 2 != d % 2) crossing += net.traffic(s, d).messages;
    EXPECT_EQ(crossing, 1u);
    EXPECT_EQ(net.totalMessages(), 7u);  // a broadcast tree over 8 ranks has 7 edges
}

// Defect 6: a 2.46 GB bcast posted ~37500 segments per rank. The chain now uses at most
// TreeBcast::kMaxSegments, whatever the size (schedules only: no buffers are touched).
TEST(BcastSim, ChainSegmentsStayFewForHugeMessages) {
    const int p = 8;  // chains of 4 inside the virtual nodes (a 2-member chain is not segmented)
    hier::Hierarchy h = virtualNodes(p, 4);
    sim::SimNetwork net(p);
    for (int r = 0; r < p; ++r) {
        CollCall c = baseCall(HIERAGG_BCAST, r, p, &h);
        c.args.rcount = size_t{1} << 24;  // 128 MiB of int64 in 64 KiB segments: 2048 before
        c.args.stype = c.args.rtype = &int64Type();
        c.args.root = 0;
        c.segmentBytes = 1 << 16;
        // The per-level chain row (auto may stream the whole tree instead: hier_pipeline).
        c.algorithm = hier::algorithmValue(*hier::algorithmByName(HIERAGG_BCAST, "chain"));
        describeTypes(c, net.transport(r));
        const Schedule s = recipes::buildSchedule(c);
        // A chain per level (the node's of 4, the two leaders'), each <= 128 segments in one
        // fragment template (a segment's steps held once).
        EXPECT_LE(s.countKind(StepKind::Recv), 2u) << "rank " << r << " " << s.algorithm;
        EXPECT_LE(s.countKind(StepKind::Send), 2u) << "rank " << r << " " << s.algorithm;
        ASSERT_GE(s.pipelines.size(), 1u) << "rank " << r << " " << s.algorithm;
        ASSERT_LE(s.pipelines.size(), 2u) << "rank " << r << " " << s.algorithm;
        size_t most = 0;
        for (const FragmentPipeline& f : s.pipelines) {
            EXPECT_LE(f.fragments, 128u);
            most = std::max(most, f.fragments);
        }
        EXPECT_GE(most, 64u) << "still pipelined";
    }
}
