#include <gtest/gtest.h>

#include <numeric>

#include "ReductionFixture.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

struct RsCase {
    bool block = false;
    std::vector<int> rcounts;  // per rank (block: all equal)
    size_t segmentBytes = 1 << 16;
    bool inPlace = false;
};

void checkReduceScatter(int p, sim::SimOp& op, const RsCase& k) {
    const size_t total = std::accumulate(k.rcounts.begin(), k.rcounts.end(), size_t{0});
    std::vector<size_t> displ(p, 0);
    for (int j = 1; j < p; ++j) displ[j] = displ[j - 1] + k.rcounts[j - 1];
    for (auto& d : reductionHierarchies(p)) {
        std::vector<std::vector<int64_t>> in(p), out(p);
        for (int r = 0; r < p; ++r) {
            in[r] = rankInput(r, total);
            out[r] = k.inPlace ? in[r] : std::vector<int64_t>(k.rcounts[r] + 3, -7);  // +3: must stay untouched
        }
        const std::vector<int64_t> full = rankOrderProduct(op, in, 0, p);
        sim::SimNetwork net(p);
        std::vector<CollCall> calls;
        for (int r = 0; r < p; ++r) {
            CollCall c = reductionCall(k.block ? HIERAGG_REDUCE_SCATTER_BLOCK : HIERAGG_REDUCE_SCATTER, r, p, &d.h, op,
                                       k.rcounts[0], k.segmentBytes);
            if (!k.block) c.args.rcounts = k.rcounts.data(), c.args.rcount = c.args.scount = 0;
            c.args.sbuf = k.inPlace ? nullptr : in[r].data();
            c.args.in_place = k.inPlace;
            c.args.rbuf = out[r].data();
            calls.push_back(c);
        }
        auto res = sim::runOne(net, calls, recipeBuilder());
        ASSERT_TRUE(res.ok) << res.error << " p=" << p << " " << d.name;
        for (int r = 0; r < p; ++r) {
            std::vector<int64_t> expect(full.begin() + displ[r], full.begin() + displ[r] + k.rcounts[r]);
            std::vector<int64_t> got(out[r].begin(), out[r].begin() + k.rcounts[r]);
            ASSERT_EQ(got, expect) << "p=" << p << " " << d.name << " rank " << r << " " << res.algorithms[r];
            if (!k.inPlace) {
                for (size_t i = k.rcounts[r]; i < out[r].size(); ++i) {
                    ASSERT_EQ(out[r][i], -7) << "wrote past the block";
                }
            }
        }
    }
}

std::vector<int> uneven(int p) {
    std::vector<int> v(p);
    for (int j = 0; j < p; ++j) v[j] = 4 * ((j * 5 + 2) % 4);  // some zero, multiples of 4 (matmul)
    return v;
}

}  // namespace

TEST(ReduceScatterSim, BlockSumAndRankOrderAllSizes) {
    for (int p = 1; p <= 9; ++p) {
        checkReduceScatter(p, sumOp(), {true, std::vector<int>(p, 4)});
        checkReduceScatter(p, matmulOp(), {true, std::vector<int>(p, 4)});
    }
}

TEST(ReduceScatterSim, UnevenCountsWithZeros) {
    for (int p = 1; p <= 9; ++p) {
        checkReduceScatter(p, sumOp(), {false, uneven(p)});
        checkReduceScatter(p, matmulOp(), {false, uneven(p)});
    }
}

TEST(ReduceScatterSim, InPlace) {
    for (int p : {1, 2, 4, 7}) {
        checkReduceScatter(p, matmulOp(), {true, std::vector<int>(p, 8), 32, true});
        checkReduceScatter(p, sumOp(), {false, uneven(p), 32, true});
        checkReduceScatter(p, matmulOp(), {false, uneven(p), 1 << 16, true});
    }
}

TEST(ReduceScatterSim, PulsesCrossBlockBoundaries) {
    // 12-element pulses over 8- and 16-element blocks: pulses straddle owners.
    for (int p : {3, 5, 8}) {
        checkReduceScatter(p, matmulOp(), {true, std::vector<int>(p, 8), 96});
        checkReduceScatter(p, sumOp(), {false, uneven(p), 40});
    }
}

TEST(ReduceScatterSim, AllZeroCounts) {
    for (int p : {1, 3, 6}) {
        checkReduceScatter(p, sumOp(), {true, std::vector<int>(p, 0)});
        checkReduceScatter(p, sumOp(), {false, std::vector<int>(p, 0)});
    }
}
