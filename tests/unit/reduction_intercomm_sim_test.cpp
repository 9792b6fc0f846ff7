#include <gtest/gtest.h>

#include <numeric>

#include "InterSim.hpp"
#include "ReductionFixture.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

struct Inter {
    int na, nb;
    int size() const { return na + nb; }
    bool inA(int g) const { return g < na; }
    int localRank(int g) const { return inA(g) ? g : g - na; }
    int localSize(int g) const { return inA(g) ? na : nb; }
    int remoteSize(int g) const { return inA(g) ? nb : na; }
};

CollCall interCall(hieragg_coll_kind kind, const Inter& ic, int g, sim::SimOp& op, size_t count) {
    CollCall c = reductionCall(kind, ic.localRank(g), ic.localSize(g), nullptr, op, count, 32);
    c.inter = true;
    c.remoteSize = ic.remoteSize(g);
    return c;
}

// Inputs of group members by global index; product of one group's inputs in its rank order.
std::vector<int64_t> groupProduct(sim::SimOp& op, const std::vector<std::vector<int64_t>>& in, int lo, int hi) {
    return rankOrderProduct(op, in, lo, hi);
}

const std::vector<Inter> kShapes = {{1, 1}, {1, 3}, {3, 1}, {2, 5}, {4, 4}, {5, 3}};

}  // namespace

TEST(InterReductionSim, ReduceToARootInEitherGroup) {
    for (const Inter& ic : kShapes)
        for (sim::SimOp* op : {&sumOp(), &matmulOp()})
            for (int root = 0; root < ic.size(); ++root) {
                const size_t count = 12;  // 12 x 8 bytes over 32-byte pulses: 3 pulses
                std::vector<std::vector<int64_t>> in(ic.size()), out(ic.size(), std::vector<int64_t>(count, -7));
                for (int g = 0; g < ic.size(); ++g) in[g] = rankInput(g, count);
                std::vector<CollCall> calls;
                for (int g = 0; g < ic.size(); ++g) {
                    CollCall c = interCall(HIERAGG_REDUCE, ic, g, *op, count);
                    if (ic.inA(g) == ic.inA(root))
                        c.args.root = g == root ? HIERAGG_ROOT : HIERAGG_PROC_NULL;
                    else
                        c.args.root = ic.localRank(root);
                    c.args.sbuf = in[g].data();
                    c.args.rbuf = out[g].data();
                    calls.push_back(c);
                }
                sim::SimNetwork net(ic.size());
                ASSERT_EQ(runInter(net, ic.na, calls), "");
                const auto expect = ic.inA(root) ? groupProduct(*op, in, ic.na, ic.size()) : groupProduct(*op, in, 0, ic.na);
                for (int g = 0; g < ic.size(); ++g)
                    ASSERT_EQ(out[g], g == root ? expect : std::vector<int64_t>(count, -7)) << "root " << root << " g " << g;
            }
}

TEST(InterReductionSim, AllreduceGivesEachGroupTheOthersProduct) {
    for (const Inter& ic : kShapes)
        for (sim::SimOp* op : {&sumOp(), &matmulOp()}) {
            const size_t count = 16;
            std::vector<std::vector<int64_t>> in(ic.size()), out(ic.size(), std::vector<int64_t>(count, -7));
            for (int g = 0; g < ic.size(); ++g) in[g] = rankInput(g, count, 1);
            std::vector<CollCall> calls;
            for (int g = 0; g < ic.size(); ++g) {
                CollCall c = interCall(HIERAGG_ALLREDUCE, ic, g, *op, count);
                c.args.sbuf = in[g].data();
                c.args.rbuf = out[g].data();
                calls.push_back(c);
            }
            sim::SimNetwork net(ic.size());
            ASSERT_EQ(runInter(net, ic.na, calls), "");
            for (int g = 0; g < ic.size(); ++g)
                ASSERT_EQ(out[g], ic.inA(g) ? groupProduct(*op, in, ic.na, ic.size()) : groupProduct(*op, in, 0, ic.na));
        }
}

TEST(InterReductionSim, ReduceScatterAndBlock) {
    for (const Inter& ic : kShapes)
        for (bool block : {false, true}) {
            // MPI: both groups reduce vectors of one common length; with blocks, rcount x remote size
            // on the sending side equals rcount x local size on the receiving side only if equal sizes.
            if (block && ic.na != ic.nb) continue;
            const size_t total = 4 * static_cast<size_t>(std::max(ic.na, ic.nb)) * 2;
            std::vector<std::vector<int>> rcounts(2);
            for (int grp = 0; grp < 2; ++grp) {
                const int n = grp == 0 ? ic.na : ic.nb;
                rcounts[grp].assign(n, 0);
                if (block) {
                    rcounts[grp].assign(n, static_cast<int>(total / n));
                } else {
                    size_t left = total;  // uneven, some zero, multiples of 4
                    for (int j = 0; j < n && left; ++j) {
                        const size_t take = std::min(left, size_t{4} * ((j * 3 + 1) % 3));
                        rcounts[grp][j] = static_cast<int>(take);
                        left -= take;
                    }
                    rcounts[grp][n - 1] += static_cast<int>(left);
                }
            }
            std::vector<std::vector<int64_t>> in(ic.size()), out(ic.size());
            for (int g = 0; g < ic.size(); ++g) {
                in[g] = rankInput(g, total);
                out[g].assign(rcounts[ic.inA(g) ? 0 : 1][ic.localRank(g)], -7);
            }
            std::vector<CollCall> calls;
            for (int g = 0; g < ic.size(); ++g) {
                const auto& rc = rcounts[ic.inA(g) ? 0 : 1];
                CollCall c = interCall(block ? HIERAGG_REDUCE_SCATTER_BLOCK : HIERAGG_REDUCE_SCATTER, ic, g, matmulOp(),
                                       static_cast<size_t>(rc[0]));
                if (!block) c.args.rcounts = rc.data();
                c.args.sbuf = in[g].data();
                c.args.rbuf = out[g].data();
                calls.push_back(c);
            }
            sim::SimNetwork net(ic.size());
            ASSERT_EQ(runInter(net, ic.na, calls), "") << ic.na << "+" << ic.nb << " block " << block;
            const auto fromB = groupProduct(matmulOp(), in, ic.na, ic.size());
            const auto fromA = groupProduct(matmulOp(), in, 0, ic.na);
            for (int g = 0; g < ic.size(); ++g) {
                const auto& rc = rcounts[ic.inA(g) ? 0 : 1];
                const size_t displ = std::accumulate(rc.begin(), rc.begin() + ic.localRank(g), size_t{0});
                const auto& full = ic.inA(g) ? fromB : fromA;
                ASSERT_EQ(out[g], std::vector<int64_t>(full.begin() + displ, full.begin() + displ + rc[ic.localRank(g)]))
                    << ic.na << "+" << ic.nb << " block " << block << " g " << g;
            }
        }
}

TEST(InterReductionSim, BarrierRunsAndOnlyRankZerosCross) {
    for (const Inter& ic : kShapes) {
        std::vector<CollCall> calls;
        for (int g = 0; g < ic.size(); ++g) {
            CollCall c = baseCall(HIERAGG_BARRIER, ic.localRank(g), ic.localSize(g), nullptr);
            c.inter = true;
            c.remoteSize = ic.remoteSize(g);
            calls.push_back(c);
        }
        sim::SimNetwork net(ic.size());
        ASSERT_EQ(runInter(net, ic.na, calls), "");
        uint64_t crossing = 0;
        for (int s = 0; s < ic.size(); ++s)
            for (int d = 0; d < ic.size(); ++d)
                if (ic.inA(s) != ic.inA(d)) crossing += net.traffic(s, d).messages;
        EXPECT_EQ(crossing, 2u);
    }
}
