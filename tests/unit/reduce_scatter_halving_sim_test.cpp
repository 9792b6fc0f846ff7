// reduce_scatter(_block)'s recursive_halving row (no root) on the simulator: results against
// the closed-form sum for every size 1..9 (folds when not a power of two), uneven and empty
// blocks, in place; messages: p2 log2 p2 + 2 (n - p2) when every block holds something, and
// no message for a half whose blocks are all empty.
#include <gtest/gtest.h>

#include <numeric>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

int halvingValue(hieragg_coll_kind k) {
    return hier::algorithmValue(*hier::algorithmByName(k, "recursive_halving"));
}

// Returns the messages the run sent.
uint64_t check(int p, bool block, const std::vector<int>& rcounts, bool inPlace, const std::string& what) {
    const hier::Hierarchy h = hier::Hierarchy::flat(p);
    const size_t total = std::accumulate(rcounts.begin(), rcounts.end(), size_t{0});
    std::vector<size_t> displ(p, 0);
    for (int j = 1; j < p; ++j) displ[j] = displ[j - 1] + rcounts[j - 1];
    std::vector<std::vector<int64_t>> in(p), out(p);
    std::vector<int64_t> sum(total, 0);
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, total);
        for (size_t i = 0; i < total; ++i) sum[i] += in[r][i];
        out[r] = inPlace ? in[r] : std::vector<int64_t>(rcounts[r] + 3, -7);
    }
    const hieragg_coll_kind kind = block ? HIERAGG_REDUCE_SCATTER_BLOCK : HIERAGG_REDUCE_SCATTER;
    sim::SimNetwork net(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        CollCall c = reductionCall(kind, r, p, &h, sumOp(), rcounts[0], 1 << 16, halvingValue(kind));
        if (!block) c.args.rcounts = rcounts.data(), c.args.rcount = c.args.scount = 0;
        setBuffers(c, in[r], out[r], inPlace);
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << what << ": " << res.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u) << what;
    if (!res.ok) return 0;
    for (int r = 0; r < p; ++r) {
        EXPECT_EQ(std::vector<int64_t>(out[r].begin(), out[r].begin() + rcounts[r]),
                  std::vector<int64_t>(sum.begin() + displ[r], sum.begin() + displ[r] + rcounts[r]))
            << what << " rank " << r << " " << res.algorithms[r];
        if (!inPlace)
            for (size_t i = rcounts[r]; i < out[r].size(); ++i) EXPECT_EQ(out[r][i], -7) << what << " past the block";
        if (p > 1 && total > 0) EXPECT_EQ(res.algorithms[r], "recursive-halving-reduce-scatter") << what;
    }
    return net.totalMessages();
}

}  // namespace

TEST(ReduceScatterHalving, EverySizeUnevenEmptyInPlace) {
    for (int p = 1; p <= 9; ++p) {
        const std::string what = "p=" + std::to_string(p);
        std::vector<int> uneven(p);
        for (int j = 0; j < p; ++j) uneven[j] = 3 * ((j * 5 + 2) % 4);  // 6, 3, 0, 9, ...: some get nothing
        check(p, true, std::vector<int>(p, 5), false, what + " block");
        check(p, false, uneven, false, what + " uneven");
        check(p, false, uneven, true, what + " uneven in place");
        check(p, true, std::vector<int>(p, 5), true, what + " block in place");
        check(p, true, std::vector<int>(p, 0), false, what + " zero");
    }
}

TEST(ReduceScatterHalving, MessagesSkipEmptyHalves) {
    for (int p = 2; p <= 9; ++p) {
        int p2 = 1, lg = 0;
        while (p2 * 2 <= p) p2 *= 2, ++lg;
        // Every half non-empty: each of the p2 ranks sends once per round, the folds twice.
        EXPECT_EQ(check(p, true, std::vector<int>(p, 2), false, "full"),
                  static_cast<uint64_t>(p2 * lg + 2 * (p - p2)))
            << "p=" << p;
    }
    // IMB's 8-byte call on 4 ranks: counts 1, 1, 0, 0. Round 1 (distance 2): ranks 2 and 3
    // send ranks 0 and 1 the lower half; the upper half is empty, so nothing comes back.
    // Round 2: ranks 0 and 1 trade one element each; ranks 2 and 3 have nothing. 4 messages.
    EXPECT_EQ(check(4, false, {1, 1, 0, 0}, false, "imb 8 B"), 4u);
}
