// The schedule and plan cache keys (src/runtime/CallCacheKeys.hpp). Every rank must hit
// or miss the plan cache exactly when the others do, or ranks pick different algorithms
// for one call and hang: a key depends on the call's shared fields alone, never on the
// root, the exact count within its size class, in-place, or what the stack held (a key
// copied from a struct carried its padding: mpi.np4.virtual2.exclusive hung under ASan).
#include <gtest/gtest.h>

#include "../../src/runtime/CallCacheKeys.hpp"

using namespace hieragg;

namespace {

// A bcast of `ints` MPI_INTs (4 bytes each) from `root`.
CollCall bcastOfInts(size_t ints, int root, int rank = 1) {
    CollCall c;
    c.args.kind = HIERAGG_BCAST;
    c.args.root = root;
    c.args.scount = c.args.rcount = ints;
    c.rank = rank;
    c.size = 4;
    c.stype = c.rtype = hieragg_dtype_info{4, 0, 4, 0, 4};
    return c;
}

}  // namespace

// Every byte of a plan key is a field's: kind, size class, commutativity, override,
// offload path (5 ints) and the rule. The old key was a struct of these copied whole,
// 4 bytes longer: its padding, which held whatever the stack did (the hang above).
TEST(CallCacheKeys, PlanKeyHoldsNoPaddingBytes) {
    EXPECT_EQ(planCacheKey(bcastOfInts(100, 0), nullptr).size(), 5 * sizeof(int) + sizeof(const void*));
}

TEST(CallCacheKeys, PlanKeyIsSharedByEveryRankOfTheCall) {
    // 400 B from root 0, seen by the root (in place) and by another rank; 480 B and 256 B
    // are in the same size class (256..511 B), from another root.
    CollCall root = bcastOfInts(100, 0, 0), other = bcastOfInts(100, 0, 1);
    root.args.in_place = 1;
    const std::string k = planCacheKey(root, nullptr);
    EXPECT_EQ(k, planCacheKey(other, nullptr));
    EXPECT_EQ(k, planCacheKey(bcastOfInts(120, 3), nullptr));
    EXPECT_EQ(k, planCacheKey(bcastOfInts(64, 2), nullptr));
    // Another class, collective, commutativity, override or rule: another plan.
    EXPECT_NE(k, planCacheKey(bcastOfInts(63, 0), nullptr));
    EXPECT_NE(k, planCacheKey(bcastOfInts(128, 0), nullptr));
    CollCall reduce = bcastOfInts(100, 0);
    reduce.args.kind = HIERAGG_REDUCE;
    EXPECT_NE(k, planCacheKey(reduce, nullptr));
    CollCall commutative = bcastOfInts(100, 0);
    commutative.args.op_commutative = 1;
    EXPECT_NE(k, planCacheKey(commutative, nullptr));
    CollCall forced = bcastOfInts(100, 0);
    forced.algorithm = 2;
    EXPECT_NE(k, planCacheKey(forced, nullptr));
    const hier::RuleCandidate rule{};
    EXPECT_NE(k, planCacheKey(bcastOfInts(100, 0), &rule));
}

TEST(CallCacheKeys, ScheduleKeySeparatesWhatTheScheduleDependsOn) {
    const std::string k = scheduleCacheKey(bcastOfInts(100, 0));
    EXPECT_EQ(k, scheduleCacheKey(bcastOfInts(100, 0)));
    EXPECT_NE(k, scheduleCacheKey(bcastOfInts(100, 1)));  // root
    EXPECT_NE(k, scheduleCacheKey(bcastOfInts(101, 0)));  // count
    CollCall inPlace = bcastOfInts(100, 0);
    inPlace.args.in_place = 1;
    EXPECT_NE(k, scheduleCacheKey(inPlace));
    CollCall strided = bcastOfInts(100, 0);
    strided.rtype = hieragg_dtype_info{4, 0, 8, 0, 4};  // same size, another extent
    EXPECT_NE(k, scheduleCacheKey(strided));
    CollCall segmented = bcastOfInts(100, 0);
    segmented.segmentBytes = 4096;
    EXPECT_NE(k, scheduleCacheKey(segmented));
    CollCall noBuffer = bcastOfInts(100, 0);
    noBuffer.args.rbuf = nullptr;
    CollCall buffer = bcastOfInts(100, 0);
    int b = 0;
    buffer.args.rbuf = &b;
    EXPECT_NE(scheduleCacheKey(noBuffer), scheduleCacheKey(buffer));
}
