#include <gtest/gtest.h>

#include "ReductionFixture.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

struct ReduceCase {
    size_t count = 8;
    size_t segmentBytes = 1 << 16;
    bool inPlace = false;
    int algorithm = 0;
};

// Reduce from every root over every decomposition; result must be the rank-order product.
void checkReduce(int p, sim::SimOp& op, const ReduceCase& k) {
    for (auto& nh : reductionHierarchies(p)) {
        for (int root = 0; root < p; ++root) {
            std::vector<std::vector<int64_t>> in(p), out(p);
            for (int r = 0; r < p; ++r) {
                in[r] = rankInput(r, k.count, root);
                out[r].assign(k.count, -7);
            }
            const std::vector<int64_t> expect = rankOrderProduct(op, in, 0, p);
            if (k.inPlace) out[root] = in[root];
            sim::SimNetwork net(p);
            std::vector<CollCall> calls;
            for (int r = 0; r < p; ++r) {
                CollCall c = reductionCall(HIERAGG_REDUCE, r, p, &nh.h, op, k.count, k.segmentBytes, k.algorithm);
                c.args.sbuf = in[r].data();
                c.args.rbuf = out[r].data();
                c.args.root = root;
                if (k.inPlace && r == root) c.args.in_place = 1, c.args.sbuf = nullptr;
                calls.push_back(c);
            }
            auto res = sim::runOne(net, calls, recipeBuilder());
            ASSERT_TRUE(res.ok) << res.error << " p=" << p << " " << nh.name << " root=" << root;
            ASSERT_EQ(out[root], expect) << "p=" << p << " " << nh.name << " root=" << root << " alg="
                                         << res.algorithms[root];
            for (int r = 0; r < p; ++r)
                if (r != root) {
                    ASSERT_EQ(out[r], std::vector<int64_t>(k.count, -7)) << "non-root rbuf touched";
                }
            // A reduction tree in every mode: every rank but the root sends each pulse exactly once.
            const uint64_t pulses = k.count == 0 ? 0 : (k.count * 8 + k.segmentBytes - 1) / k.segmentBytes;
            EXPECT_EQ(net.totalMessages(), (p - 1) * pulses);
        }
    }
}

}  // namespace

TEST(ReduceSim, SumAllSizesAllDecompositionsAllRoots) {
    for (int p = 1; p <= 9; ++p) checkReduce(p, sumOp(), {});
}

TEST(ReduceSim, NonCommutativeKeepsRankOrder) {
    for (int p = 1; p <= 9; ++p) checkReduce(p, matmulOp(), {});
}

TEST(ReduceSim, InPlaceAtRoot) {
    for (int p : {1, 2, 5, 8}) {
        checkReduce(p, sumOp(), {8, 1 << 16, true});
        checkReduce(p, matmulOp(), {8, 1 << 16, true});
    }
}

TEST(ReduceSim, ZeroCountSendsNothing) {
    for (int p : {1, 3, 6}) checkReduce(p, sumOp(), {0});
}

TEST(ReduceSim, PulsesOfSeveralSegments) {
    // 4 elements (32 bytes) per pulse, 9 pulses (last partial for sum).
    for (int p : {3, 5, 7}) {
        checkReduce(p, sumOp(), {34, 32});
        checkReduce(p, matmulOp(), {36, 32});
        checkReduce(p, matmulOp(), {36, 32, true});
    }
}

TEST(ReduceSim, FlatOverrideMatches) {
    for (int p : {4, 7}) checkReduce(p, matmulOp(), {8, 1 << 16, false, 2});
}

TEST(ReduceSim, HierarchicalSendsOneMessagePerNonRootLeaderAcrossLeaderSpace) {
    // 3 virtual nodes of 3 ranks; root 4 is in node 1. Across node boundaries only the
    // leaders of nodes 0 and 2 send, once each.
    const int p = 9;
    hier::Hierarchy h = virtualNodes(p, 3);
    for (sim::SimOp* op : {&sumOp(), &matmulOp()}) {
        sim::SimNetwork net(p);
        std::vector<std::vector<int64_t>> in(p), out(p, std::vector<int64_t>(4, 0));
        std::vector<CollCall> calls;
        for (int r = 0; r < p; ++r) {
            in[r] = rankInput(r, 4);
            CollCall c = reductionCall(HIERAGG_REDUCE, r, p, &h, *op, 4, 1 << 16);
            c.args.sbuf = in[r].data();
            c.args.rbuf = out[r].data();
            c.args.root = 4;
            calls.push_back(c);
        }
        ASSERT_TRUE(sim::runOne(net, calls, recipeBuilder()).ok);
        EXPECT_EQ(out[4], rankOrderProduct(*op, in, 0, p));
        uint64_t crossing = 0;
        for (int s = 0; s < p; ++s)
            for (int d = 0; d < p; ++d)
                if (s / 3 != d / 3) crossing += net.traffic(s, d).messages;
        EXPECT_EQ(crossing, 2u);
        // A tree of 9 ranks has 8 edges, in rank order too (left and right trees meet at the root).
        EXPECT_EQ(net.totalMessages(), 8u);
    }
}

TEST(ReduceSim, NonCommutativeRoundRobinFallsBackToFlatInOrder) {
    hier::Hierarchy h = roundRobin(6, 2);
    CollCall c = reductionCall(HIERAGG_REDUCE, 0, 6, &h, matmulOp(), 4, 1 << 16);
    sim::SimNetwork net(6);
    describeTypes(c, net.transport(0));
    EXPECT_EQ(recipes::buildSchedule(c).algorithm.rfind("flat-ordered-", 0), 0u) << recipes::buildSchedule(c).algorithm;
    c.args.op = &sumOp();
    c.args.op_commutative = 1;
    const std::string hierName = recipes::buildSchedule(c).algorithm;
    EXPECT_TRUE(hierName.rfind("hier-", 0) == 0 || hierName.rfind("hier_knomial", 0) == 0) << hierName;
}

TEST(ReduceSim, TemporaryMemoryStaysBoundedForHugeCounts) {
    // Schedules only (no run): scratch is a window of pulses x tree degree, whatever the count.
    const int p = 8;
    hier::Hierarchy h = virtualNodes(p, 4);
    const size_t seg = 4096;
    sim::SimNetwork net(p);
    size_t small = 0, huge = 0;
    for (int r = 0; r < p; ++r) {
        for (size_t count : {size_t{1} << 16, size_t{1} << 24}) {
            CollCall c = reductionCall(HIERAGG_REDUCE, r, p, &h, sumOp(), count, seg);
            c.args.root = 0;
            describeTypes(c, net.transport(r));
            const size_t t = recipes::buildSchedule(c).tempBytes();
            (count == (size_t{1} << 16) ? small : huge) = std::max(count == (size_t{1} << 16) ? small : huge, t);
        }
    }
    EXPECT_EQ(small, huge);
    EXPECT_LE(huge, 8 * 4 * seg);  // window 8 x at most 3 children (+1) x segment
}
