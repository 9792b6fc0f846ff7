// What decides that a call repeats the last one (src/runtime/LastCall.hpp): the compiled
// fast path's entry and scheduleFor's shortcut run the last schedule only for a call whose
// raw arguments equal the kept ones in every field the schedule depends on. A change of
// count, datatype, op, root, in-place or a buffer's presence is never a repeat; other
// buffer addresses are (they are bound per call). Keeping or dropping the raw arguments
// always changes their generation (what CallCache::compiledForLast's answer is tied to).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "../../src/runtime/LastCall.hpp"

using namespace hieragg;

namespace {

int bufferA, bufferB, bufferC, bufferD;
int typeA, typeB, opA, opB;

hieragg_coll_args allreduceArgs() {
    hieragg_coll_args a{};
    a.kind = HIERAGG_ALLREDUCE;
    a.sbuf = &bufferA;
    a.rbuf = &bufferB;
    a.scount = a.rcount = 1;
    a.stype = a.rtype = &typeA;
    a.op = &opA;
    a.op_commutative = 1;
    return a;
}

constexpr hieragg_dtype_info kInt{4, 0, 4, 0, 4, 1};

}  // namespace

TEST(LastCallTest, OnlyAnEqualCallInEveryFieldTheScheduleReadsIsARepeat) {
    LastCall last;
    const hieragg_coll_args kept = allreduceArgs();
    EXPECT_FALSE(last.repeatsRaw(kept)) << "nothing kept yet";
    last.keepRaw(kept, kInt, kInt, 0, true);
    EXPECT_TRUE(last.repeatsRaw(kept));

    // Other buffers (bound per call): still the same signature.
    hieragg_coll_args moved = kept;
    moved.sbuf = &bufferC;
    moved.rbuf = &bufferD;
    EXPECT_TRUE(last.repeatsRaw(moved)) << "another buffer address is not another signature";

    // Each change of one field the schedule or the launch reads: never a repeat.
    const std::vector<std::pair<std::string, std::function<void(hieragg_coll_args&)>>> changes = {
        {"kind", [](hieragg_coll_args& a) { a.kind = HIERAGG_REDUCE; }},
        {"root", [](hieragg_coll_args& a) { a.root = 1; }},
        {"in_place", [](hieragg_coll_args& a) { a.in_place = 1; }},
        {"scount", [](hieragg_coll_args& a) { a.scount = 3; }},
        {"rcount", [](hieragg_coll_args& a) { a.rcount = 3; }},
        {"stype", [](hieragg_coll_args& a) { a.stype = &typeB; }},
        {"rtype", [](hieragg_coll_args& a) { a.rtype = &typeB; }},
        {"op", [](hieragg_coll_args& a) { a.op = &opB; }},
        {"op_commutative", [](hieragg_coll_args& a) { a.op_commutative = 0; }},
        {"float_sum", [](hieragg_coll_args& a) { a.float_sum = HIERAGG_FLOAT_SUM_DOUBLE; }},
        {"sbuf presence", [](hieragg_coll_args& a) { a.sbuf = nullptr; }},
        {"rbuf presence", [](hieragg_coll_args& a) { a.rbuf = nullptr; }},
        {"topology", [](hieragg_coll_args& a) { a.topology = HIERAGG_TOPO_CART; }},
        {"indegree", [](hieragg_coll_args& a) { a.indegree = 2; }},
        {"outdegree", [](hieragg_coll_args& a) { a.outdegree = 2; }},
    };
    for (const auto& change : changes) {
        hieragg_coll_args other = kept;
        change.second(other);
        EXPECT_FALSE(last.repeatsRaw(other)) << "a call with another " << change.first << " repeated the last";
    }

    // Dropped: nothing repeats, the same arguments included.
    last.dropRaw();
    EXPECT_FALSE(last.repeatsRaw(kept));
}

TEST(LastCallTest, KeepingOrDroppingTheRawArgumentsAlwaysChangesTheirGeneration) {
    LastCall last;
    const hieragg_coll_args a = allreduceArgs();
    uint64_t seen = last.rawGeneration;
    auto changed = [&] {
        const bool moved = last.rawGeneration != seen;
        seen = last.rawGeneration;
        return moved;
    };
    last.keepRaw(a, kInt, kInt, 0, true);
    EXPECT_TRUE(changed());
    EXPECT_TRUE(last.rawCompilable);
    last.keepRaw(a, kInt, kInt, 0, false);  // the same arguments kept again (a new schedule)
    EXPECT_TRUE(changed()) << "keeping the same arguments again must look again";
    EXPECT_FALSE(last.rawCompilable);
    last.dropRaw();
    EXPECT_TRUE(changed());
    EXPECT_FALSE(last.rawValid);
    last.dropRaw();
    EXPECT_TRUE(changed());
}

// The blocking barrier's entry (runBarrier) asks repeatsCompilableBarrier instead of comparing
// its arguments: it must say exactly what repeatsRaw(kBarrierArgs) && rawCompilable says,
// whatever was kept before.
TEST(LastCallTest, TheBarrierEntryRepeatsExactlyACompilableBarrier) {
    LastCall last;
    EXPECT_FALSE(last.repeatsCompilableBarrier()) << "nothing kept";
    hieragg_coll_args barrier{};
    barrier.kind = HIERAGG_BARRIER;
    last.keepRaw(barrier, hieragg_dtype_info{}, hieragg_dtype_info{}, 0, true);
    EXPECT_TRUE(last.repeatsRaw(kBarrierArgs));
    EXPECT_TRUE(last.repeatsCompilableBarrier());
    last.keepRaw(barrier, hieragg_dtype_info{}, hieragg_dtype_info{}, 0, false);
    EXPECT_FALSE(last.repeatsCompilableBarrier()) << "a barrier the fast path may not run";
    last.keepRaw(allreduceArgs(), kInt, kInt, 0, true);
    EXPECT_FALSE(last.repeatsCompilableBarrier()) << "another kind kept";
    hieragg_coll_args rooted = barrier;  // not what the shim fills for a barrier
    rooted.root = 2;
    last.keepRaw(rooted, hieragg_dtype_info{}, hieragg_dtype_info{}, 0, true);
    EXPECT_FALSE(last.repeatsRaw(kBarrierArgs));
    EXPECT_FALSE(last.repeatsCompilableBarrier()) << "a barrier's arguments with another root";
    last.keepRaw(barrier, hieragg_dtype_info{}, hieragg_dtype_info{}, 0, true);
    EXPECT_TRUE(last.repeatsCompilableBarrier());
    last.dropRaw();
    EXPECT_FALSE(last.repeatsRaw(kBarrierArgs));
    EXPECT_FALSE(last.repeatsCompilableBarrier()) << "dropped";
}
