// allgatherv's `bruck` row on the simulator: every rank's block lands at its displacement
// in every rbuf (closed form), sizes 1..9, in place or not, zero counts, blocks in rank
// order (a step's range travels as one message, two where it wraps past the last rank)
// and in reverse order with gaps (one message per non-empty block); no temporary memory.
// And the model: on one node the mean block picks Bruck over the ring (ceil(log2 p) hand-offs
// instead of p - 1), as allgather's model does.
#include <gtest/gtest.h>

#include "FlatAllgathervCase.hpp"
#include "OversubscribedNodeCosts.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/OversubscribedNode.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

int bruckValue() { return hier::algorithmValue(*hier::algorithmByName(HIERAGG_ALLGATHERV, "bruck")); }

// Messages Bruck sends for these counts: at distance d each member i sends members
// i .. i + k - 1 (mod p, k = min(d, p - d)); in rank order one message per run that does
// not wrap past p - 1 and is not empty; out of order one message per non-empty block.
uint64_t expectedMessages(const std::vector<int>& counts, bool rankOrder) {
    const int p = static_cast<int>(counts.size());
    uint64_t msgs = 0;
    for (int i = 0; i < p; ++i)
        for (int d = 1; d < p; d *= 2) {
            const int k = std::min(d, p - d);
            if (!rankOrder) {
                for (int j = 0; j < k; ++j) msgs += counts[(i + j) % p] > 0;
                continue;
            }
            int low = 0, high = 0;  // words before and after the wrap
            for (int j = 0; j < k; ++j) (i + j < p ? low : high) += counts[(i + j) % p];
            msgs += (low > 0) + (high > 0);
        }
    return msgs;
}

void check(int p, bool rankOrder, bool inPlace, bool zeros) {
    FlatAllgathervCase t(p, bruckValue(), rankOrder, inPlace, zeros);
    t.run();
    EXPECT_EQ(t.net.totalMessages(), expectedMessages(t.counts, rankOrder));
    EXPECT_EQ(recipes::buildSchedule(t.calls[0]).tempBytes(), 0u);
    EXPECT_EQ(recipes::buildSchedule(t.calls[0]).algorithm, "flat-bruck");
}

}  // namespace

TEST(AllgathervBruck, EverySizeLayoutInPlaceAndZeroCounts) {
    forEveryFlatAllgathervCase(check);
}

// In rank order with no empty block, a member's range wraps at most once: the 8-rank
// exchange takes 8 * 3 steps and one more message for each (member, step) that wraps.
TEST(AllgathervBruck, EightRanksInRankOrderClosedForm) {
    const std::vector<int> counts(8, 2);
    int wraps = 0;
    for (int i = 0; i < 8; ++i)
        for (int d : {1, 2, 4}) wraps += i + std::min(d, 8 - d) > 8;
    EXPECT_EQ(expectedMessages(counts, true), static_cast<uint64_t>(8 * 3 + wraps));
    EXPECT_EQ(wraps, 0 + 1 + 3);  // d = 1: i = 7 does not wrap (k = 1); d = 2: i = 7; d = 4: i = 5, 6, 7
}

// One node, more ranks than cores (the one-node benchmark's np 4 and 8 on 2 cores) and a
// quiet node: allgatherv's auto takes Bruck for 8 B and 64 KiB mean blocks, at the price
// allgather's model gives recursive doubling: ceil(log2 p) start-ups and (p - 1) blocks.
TEST(AllgathervBruck, OneNodeAutoTakesBruck) {
    for (int p : {4, 8})
        for (int cores : {0, 2})
            for (int words : {1, 8192}) {
                hier::CostParams params = oversubscribedNodeCosts(p, cores);
                std::vector<int> counts(p, words);
                CollCall c = baseCall(HIERAGG_ALLGATHERV, 0, p, nullptr);
                c.rtype = {8, 0, 8, 0, 8};
                c.args.rcounts = counts.data();
                EXPECT_EQ(hier::modelBytes(c), static_cast<size_t>(words) * 8);
                const hier::Plan plan = hier::choosePlan(c, params);
                ASSERT_TRUE(plan.stages.at(0).algo);
                EXPECT_EQ(plan.stages[0].algo->name, std::string("bruck")) << "p=" << p << " cores=" << cores;
                const hier::LinkCost& l = params.link[hier::kLinkNode];
                const double S = words * 8.0, rounds = p == 4 ? 2 : 3;
                EXPECT_NEAR(plan.predUs, rounds * (l.alpha_us + l.theta_us) + (p - 1) * S * l.beta_us_per_byte,
                            1e-9 * plan.predUs);
                const double ring = (p - 1) * (l.alpha_us + l.theta_us + S * l.beta_us_per_byte);
                EXPECT_LT(plan.predUs, ring);
            }
}
