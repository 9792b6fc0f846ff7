// allgatherv's `recursive_doubling` row (algorithms/allgatherv/recursive_doubling.cpp) on the
// simulator: every rank's rbuf holds every block at its displacement and nothing in the gaps
// (closed form of the inputs), sizes 1..9 (powers of two and the fold of the extra ranks),
// in place or not, uneven counts with zeros, blocks in rank order and reversed with gaps; no
// temporary memory. Reversed with gaps and no empty block, every block travels alone: the
// fold in (r messages), the rounds (d (p2 + r) = d p per round) and the fold out (r (p - 1))
// add up to p (p - 1) messages, the ring's count.
#include <gtest/gtest.h>

#include "FlatAllgathervCase.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Recipes.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int64_t kUntouched = FlatAllgathervCase::kUntouched;
int doublingValue() {
    const hier::AlgorithmInfo* a = hier::algorithmByName(HIERAGG_ALLGATHERV, "recursive_doubling");
    return a ? hier::algorithmValue(*a) : -1;
}

void check(int p, bool rankOrder, bool inPlace, bool zeros) {
    FlatAllgathervCase t(p, doublingValue(), rankOrder, inPlace, zeros);
    t.run();
    if (!rankOrder && !zeros) EXPECT_EQ(t.net.totalMessages(), static_cast<uint64_t>(p * (p - 1)));
    for (int r = 0; r < p; ++r) {
        const Schedule s = recipes::buildSchedule(t.calls[r]);
        EXPECT_EQ(s.tempBytes(), 0u);
        EXPECT_EQ(s.algorithm, "flat-recursive-doubling");
    }
}

}  // namespace

TEST(AllgathervRecursiveDoubling, RowExists) {
    const hier::AlgorithmInfo* a = hier::algorithmByName(HIERAGG_ALLGATHERV, "recursive_doubling");
    ASSERT_NE(a, nullptr);
    EXPECT_NE(a->build, nullptr);
    EXPECT_EQ(a->needs & hier::kNeedsPowerOfTwo, 0u);  // any size: it folds the extra ranks in
    EXPECT_NE(std::string(hier::algorithmNames(HIERAGG_ALLGATHERV)).find(",recursive_doubling"), std::string::npos);
}

TEST(AllgathervRecursiveDoubling, EverySizeLayoutInPlaceAndZeroCounts) {
    forEveryFlatAllgathervCase(check);
}

// Every count zero: nothing moves, nothing is touched.
TEST(AllgathervRecursiveDoubling, AllEmpty) {
    for (int p : {1, 3, 4, 6}) {
        std::vector<int> counts(p, 0), displs(p, 0);
        sim::SimNetwork net(p);
        std::vector<std::vector<int64_t>> recv(p, std::vector<int64_t>(2, kUntouched));
        std::vector<CollCall> calls;
        for (int r = 0; r < p; ++r) {
            CollCall c = baseCall(HIERAGG_ALLGATHERV, r, p, nullptr);
            c.algorithm = doublingValue();
            c.args.sbuf = recv[r].data();
            c.args.stype = &int64Type();
            c.args.scount = 0;
            c.args.rbuf = recv[r].data();
            c.args.rtype = &int64Type();
            c.args.rcounts = counts.data();
            c.args.rdispls = displs.data();
            calls.push_back(c);
        }
        auto res = sim::runOne(net, calls, recipeBuilder());
        ASSERT_TRUE(res.ok) << res.error;
        EXPECT_EQ(net.totalMessages(), 0u) << "p=" << p;
        for (int r = 0; r < p; ++r) EXPECT_EQ(recv[r], std::vector<int64_t>(2, kUntouched));
    }
}
