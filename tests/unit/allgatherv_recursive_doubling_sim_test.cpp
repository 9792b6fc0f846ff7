// allgatherv's `recursive_doubling` row (algorithms/allgatherv/recursive_doubling.cpp) on the
// simulator: every rank's rbuf holds every block at its displacement and nothing in the gaps
// (closed form of the inputs), sizes 1..9 (powers of two and the fold of the extra ranks),
// in place or not, uneven counts with zeros, blocks in rank order and reversed with gaps; no
// temporary memory. Reversed with gaps and no empty block, every block travels alone: the
// fold in (r messages), the rounds (d (p2 + r) = d p per round) and the fold out (r (p - 1))
// add up to p (p - 1) messages, the ring's count.
#include <gtest/gtest.h>

#include "DataMovementFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Recipes.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int64_t kUntouched = -7;
int64_t value(int src, size_t i) { return 1000 * src + static_cast<int64_t>(i) + 1; }
int doublingValue() {
    const hier::AlgorithmInfo* a = hier::algorithmByName(HIERAGG_ALLGATHERV, "recursive_doubling");
    return a ? hier::algorithmValue(*a) : -1;
}

void check(int p, bool rankOrder, bool inPlace, bool zeros) {
    std::vector<int> counts(p), displs(p);
    for (int r = 0; r < p; ++r) counts[r] = zeros && r % 3 == 1 ? 0 : 1 + (r * 5) % 4;
    int at = 0;
    for (int j = 0; j < p; ++j) {
        const int r = rankOrder ? j : p - 1 - j;
        displs[r] = at;
        at += counts[r] + (rankOrder ? 0 : 1);  // reversed: a gap word after every block
    }
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p, std::vector<int64_t>(at + 1, kUntouched));
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        for (int i = 0; i < counts[r]; ++i) send[r].push_back(value(r, i));
        CollCall c = baseCall(HIERAGG_ALLGATHERV, r, p, nullptr);
        c.algorithm = doublingValue();
        c.args.sbuf = inPlace ? nullptr : send[r].data();
        c.args.in_place = inPlace;
        c.args.stype = inPlace ? nullptr : &int64Type();
        c.args.scount = counts[r];
        c.args.rbuf = recv[r].data();
        c.args.rtype = &int64Type();
        c.args.rcounts = counts.data();
        c.args.rdispls = displs.data();
        if (inPlace)
            for (int i = 0; i < counts[r]; ++i) recv[r][displs[r] + i] = value(r, i);
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u);
    std::vector<int64_t> expect(at + 1, kUntouched);
    for (int s = 0; s < p; ++s)
        for (int i = 0; i < counts[s]; ++i) expect[displs[s] + i] = value(s, i);
    for (int r = 0; r < p; ++r) EXPECT_EQ(recv[r], expect) << "rank " << r;
    if (!rankOrder && !zeros) EXPECT_EQ(net.totalMessages(), static_cast<uint64_t>(p * (p - 1)));
    for (int r = 0; r < p; ++r) {
        const Schedule s = recipes::buildSchedule(calls[r]);
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
    for (int p = 1; p <= 9; ++p)
        for (bool rankOrder : {true, false})
            for (bool inPlace : {false, true})
                for (bool zeros : {false, true}) {
                    SCOPED_TRACE("p=" + std::to_string(p) + (rankOrder ? " rank order" : " reversed, gaps") +
                                 (inPlace ? " in place" : "") + (zeros ? " zero counts" : ""));
                    check(p, rankOrder, inPlace, zeros);
                }
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
