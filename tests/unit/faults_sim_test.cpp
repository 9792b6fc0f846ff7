// Faults and resources on the simulator: a failed send (PML error), a truncated
// receive and temporaries that cannot be had end the Task with an error, release
// its requests and never leave it running; a temporary-memory limit picks a
// smaller schedule the same way on every rank, or, when none fits, the one with
// the least need, the same way on every rank.
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "ReductionFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/Task.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/TempLimit.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int kInjected = 77;

// Builds and starts rank r's task for calls[r]; returns it.
std::unique_ptr<Task> startTask(sim::SimNetwork& net, sim::SimComm& comm, CollCall& c, size_t maxTemp = 0) {
    describeTypes(c, net.transport(c.rank));
    auto s = std::make_shared<Schedule>(recipes::buildSchedule(c));
    TaskBindings b = bindCall(c, net.transport(c.rank), &comm, -1, -(1 << 20));
    b.maxTempBytes = maxTemp;
    auto t = std::make_unique<Task>(s, net.transport(c.rank), b);
    t->start();
    return t;
}

// Rank r's gather of 128 KiB per rank (16384 int64) to root 0: past every small limit
// wherever a rank holds another's block.
CollCall bigGatherCall(int r, int p, const hier::Hierarchy& h) {
    CollCall c = baseCall(HIERAGG_GATHER, r, p, &h);
    c.args.stype = c.args.rtype = &int64Type();
    c.args.scount = c.args.rcount = 16384;
    c.args.root = 0;
    c.stype = c.rtype = {8, 0, 8, 0, 8};
    return c;
}

}  // namespace

TEST(FaultsSim, FailedSendEndsTheTaskWithTheErrorAndReleasesItsRequests) {
    const int p = 4;
    hier::Hierarchy h = virtualNodes(p, 2);
    const size_t n = 4096;
    std::vector<std::vector<int64_t>> in(p), out(p, std::vector<int64_t>(n));
    sim::SimNetwork net(p);
    sim::SimComm comm{3};
    net.failSends(2, 1, kInjected);  // rank 2's second send fails
    std::vector<std::unique_ptr<Task>> tasks;
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, n);
        calls.push_back(reductionCall(HIERAGG_ALLREDUCE, r, p, &h, sumOp(), n, 1024));
        calls[r].args.sbuf = in[r].data();
        calls[r].args.rbuf = out[r].data();
    }
    for (int r = 0; r < p; ++r) tasks.push_back(startTask(net, comm, calls[r]));
    for (int round = 0; round < 1000 && !tasks[2]->done(); ++round)
        for (auto& t : tasks) t->progress();
    ASSERT_TRUE(tasks[2]->done()) << "the failing rank must finish, not wait";
    EXPECT_EQ(tasks[2]->status(), kInjected);
    tasks.clear();  // the other ranks' calls are abandoned too: no request outlives its task
    EXPECT_EQ(net.postedReceives(), 0u);
}

TEST(FaultsSim, TruncatedReceiveEndsTheReceiverWithAnError) {
    // The root broadcasts 100 elements, rank 1 expects 10: its receive is truncated.
    const int p = 2;
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> buf(p, std::vector<int64_t>(100, 5));
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        CollCall c = baseCall(HIERAGG_BCAST, r, p, nullptr);
        c.args.sbuf = c.args.rbuf = buf[r].data();
        c.args.stype = c.args.rtype = &int64Type();
        c.args.scount = c.args.rcount = r == 0 ? 100 : 10;
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_FALSE(res.ok);
    EXPECT_NE(res.error.find("truncated"), std::string::npos) << res.error;
    EXPECT_EQ(res.error.find("deadlock"), std::string::npos) << res.error;
}

TEST(FaultsSim, TemporariesOverTheLimitFailTheStartBeforeAnyMessage) {
    const int p = 4;
    hier::Hierarchy h = virtualNodes(p, 2);
    sim::SimNetwork net(p);
    sim::SimComm comm{5};
    std::vector<int64_t> in = rankInput(0, 8192), out(8192);
    CollCall c = reductionCall(HIERAGG_ALLREDUCE, 0, p, &h, sumOp(), in.size(), 1 << 16);
    c.args.sbuf = in.data();
    c.args.rbuf = out.data();
    auto t = startTask(net, comm, c, 1);
    EXPECT_TRUE(t->done());
    EXPECT_EQ(t->status(), HIERAGG_ERR_NO_MEM);
    EXPECT_EQ(net.totalMessages(), 0u);
    EXPECT_EQ(net.postedReceives(), 0u);
}

// Allreduce over a limit smaller than its default pulses: smaller pulses on every rank,
// exact result, and no rank's temporaries above the limit.
TEST(FaultsSim, TempLimitShrinksPulsesConsistently) {
    const int p = 4;
    const size_t n = 8192, limit = 8192;
    hier::Hierarchy h = virtualNodes(p, 2);
    {
        CollCall probe = reductionCall(HIERAGG_ALLREDUCE, 0, p, &h, sumOp(), n, 1 << 16);
        probe.rtype = probe.stype = {8, 0, 8, 0, 8};
        ASSERT_GT(recipes::worstTempBytes(probe), limit) << "the case must need the fallback";
    }
    std::vector<std::vector<int64_t>> in(p), out(p, std::vector<int64_t>(n, -1));
    for (int r = 0; r < p; ++r) in[r] = rankInput(r, n);
    const std::vector<int64_t> expect = rankOrderProduct(sumOp(), in, 0, p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        calls.push_back(reductionCall(HIERAGG_ALLREDUCE, r, p, &h, sumOp(), n, 1 << 16));
        calls[r].args.sbuf = in[r].data();
        calls[r].args.rbuf = out[r].data();
    }
    sim::SimNetwork net(p);
    auto res = sim::runOne(net, calls, [&](const CollCall& c) {
        std::optional<Schedule> s = recipes::scheduleWithinTempLimit(c, limit);
        if (!s) throw std::runtime_error("no schedule");
        EXPECT_LE(s->tempBytes(), limit) << "rank " << c.rank;
        return std::move(*s);
    });
    ASSERT_TRUE(res.ok) << res.error;
    for (int r = 0; r < p; ++r) EXPECT_EQ(out[r], expect) << "rank " << r;
}

// A gather whose relaying ranks hold whole blocks (16 ranks: the flat fallback's
// k-nomial tree has relays too): the limit falls back to the `direct` row, which
// stages nothing, on every rank.
TEST(FaultsSim, TempLimitTakesTheDirectGatherWhenTreesStageBlocks) {
    const int p = 16;
    hier::Hierarchy h = virtualNodes(p, 2);
    for (int r = 0; r < p; ++r) {
        CollCall c = bigGatherCall(r, p, h);
        // The k-nomial rows stage subtrees' blocks in a temporary (so does the flat fallback).
        c.algorithm = hier::algorithmValue(*hier::algorithmByName(HIERAGG_GATHER, "knomial"));
        ASSERT_GT(recipes::worstTempBytes(c), 8192u) << "the case must need the fallback";
        const recipes::TempLimitChoice choice = recipes::chooseUnderTempLimit(c, 8192);
        EXPECT_TRUE(choice.fits) << "rank " << r;
        EXPECT_EQ(choice.schedule.tempBytes(), 0u) << "rank " << r;
        EXPECT_NE(choice.schedule.algorithm.find("direct"), std::string::npos) << choice.schedule.algorithm;
    }
}

// Nothing fits (a non-commutative reduce_scatter_block: every schedule holds at least
// a pulse of a partial result, 64 bytes or more, under a 16-byte limit): the call runs all the same, over the
// limit, with the same schedule on every rank (the least need any candidate has), and
// the blocks are exact products in rank order. Failing it would end a job that can run.
TEST(FaultsSim, TempLimitRunsTheLeastNeedAlikeWhenNothingFits) {
    const int p = 7;
    const size_t block = 1536, limit = 16;  // 12 KiB of int64 per block
    const hier::Hierarchy h = hier::Hierarchy::flat(p);  // one node: the reduce's root holds the vector
    std::vector<std::vector<int64_t>> in(p), out(p, std::vector<int64_t>(block, -1));
    for (int r = 0; r < p; ++r) in[r] = rankInput(r, block * p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        calls.push_back(reductionCall(HIERAGG_REDUCE_SCATTER_BLOCK, r, p, &h, matmulOp(), block, 1 << 16));
        calls[r].stype = calls[r].rtype = {8, 0, 8, 0, 8};
        calls[r].plan = std::make_shared<const hier::Plan>(hier::choosePlan(calls[r], hier::CostParams::defaults()));
        calls[r].args.sbuf = in[r].data();
        calls[r].args.rbuf = out[r].data();
    }
    const size_t chosenNeed = recipes::worstTempBytes(calls[0]);
    ASSERT_GT(chosenNeed, limit) << "the case must exceed the limit";
    std::vector<std::string> names(p);
    std::vector<size_t> needs(p);
    sim::SimNetwork net(p);
    auto res = sim::runOne(net, calls, [&](const CollCall& c) {
        recipes::TempLimitChoice choice = recipes::chooseUnderTempLimit(c, limit);
        EXPECT_FALSE(choice.fits) << "rank " << c.rank << ": " << choice.schedule.algorithm;
        EXPECT_FALSE(recipes::scheduleWithinTempLimit(c, limit).has_value()) << "rank " << c.rank;
        EXPECT_LE(choice.schedule.tempBytes(), choice.worstBytes) << "rank " << c.rank;
        names[c.rank] = choice.schedule.algorithm;
        needs[c.rank] = choice.worstBytes;
        return std::move(choice.schedule);
    });
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u);
    for (int r = 0; r < p; ++r) {
        EXPECT_EQ(names[r], names[0]) << "rank " << r << " runs another schedule";
        EXPECT_EQ(needs[r], needs[0]) << "rank " << r;
        EXPECT_LE(needs[r], chosenNeed) << "the least need is no more than the first choice's";
        // Block r = in[0] op in[1] op ... op in[p-1] over the elements of block r.
        std::vector<std::vector<int64_t>> blocks(p);
        for (int q = 0; q < p; ++q)
            blocks[q].assign(in[q].begin() + static_cast<long>(r * block), in[q].begin() + static_cast<long>((r + 1) * block));
        EXPECT_EQ(out[r], rankOrderProduct(matmulOp(), blocks, 0, p)) << "rank " << r << " " << names[r];
    }
}

// As the runtime calls it: the plan of the signature class is attached. A chain bcast
// of a non-contiguous type packs the whole message into a temporary on every rank
// whatever the segment, so only the flat registry row (one unsegmented tree) fits: the
// limit must replace the attached plan, not keep running it, the same way on every rank.
TEST(FaultsSim, TempLimitFallsBackToTheFlatRowOverAnAttachedPlan) {
    const int p = 4;
    const size_t n = 1024, limit = 4096;
    hier::Hierarchy h = virtualNodes(p, 2);
    const int chain = hier::algorithmValue(*hier::algorithmByName(HIERAGG_BCAST, "chain"));
    for (int r = 0; r < p; ++r) {
        CollCall c = baseCall(HIERAGG_BCAST, r, p, &h);
        c.args.rcount = n;
        c.args.root = 1;
        c.rtype = {8, 0, 16, 0, 8};  // one int64 every 16 bytes
        c.segmentBytes = 1024;
        c.algorithm = chain;
        c.plan = std::make_shared<const hier::Plan>(hier::choosePlan(c, hier::CostParams::defaults()));
        ASSERT_GT(recipes::buildSchedule(c).tempBytes(), limit) << "the case must need the fallback";
        std::optional<Schedule> s = recipes::scheduleWithinTempLimit(c, limit);
        ASSERT_TRUE(s.has_value()) << "rank " << r;
        EXPECT_LE(s->tempBytes(), limit) << "rank " << r;
        EXPECT_EQ(s->algorithm.rfind("flat-", 0), 0u) << "rank " << r << ": " << s->algorithm;
    }
}

// Issue 7 rows under the limit, as the runtime calls them (plan attached). Rabenseifner on
// a non-power-of-two size folds a whole pulse into scratch per window slot: halved
// segments must shrink it below the limit, the same way on every rank, exact sums.
TEST(FaultsSim, TempLimitShrinksRabenseifnerOnNonPowerOfTwo) {
    const int p = 6;
    const size_t n = 1 << 15, limit = 64 * 1024;
    const hier::Hierarchy flat = hier::Hierarchy::flat(p);
    const int row = hier::algorithmValue(*hier::algorithmByName(HIERAGG_ALLREDUCE, "rabenseifner"));
    std::vector<std::vector<int64_t>> in(p), out(p, std::vector<int64_t>(n, -1));
    std::vector<int64_t> expect(n, 0);
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, n);
        for (size_t i = 0; i < n; ++i) expect[i] += in[r][i];
    }
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        calls.push_back(reductionCall(HIERAGG_ALLREDUCE, r, p, &flat, sumOp(), n, 1 << 16, row));
        calls[r].rtype = calls[r].stype = {8, 0, 8, 0, 8};
        calls[r].plan = std::make_shared<const hier::Plan>(hier::choosePlan(calls[r], hier::CostParams::defaults()));
        calls[r].args.sbuf = in[r].data();
        calls[r].args.rbuf = out[r].data();
    }
    ASSERT_GT(recipes::worstTempBytes(calls[0]), limit) << "the case must need the fallback";
    std::vector<std::string> names(p);
    sim::SimNetwork net(p);
    auto res = sim::runOne(net, calls, [&](const CollCall& c) {
        std::optional<Schedule> s = recipes::scheduleWithinTempLimit(c, limit);
        if (!s) throw std::runtime_error("no schedule");
        EXPECT_LE(s->tempBytes(), limit) << "rank " << c.rank;
        names[c.rank] = s->algorithm;
        return std::move(*s);
    });
    ASSERT_TRUE(res.ok) << res.error;
    for (int r = 0; r < p; ++r) {
        EXPECT_EQ(out[r], expect) << "rank " << r;
        EXPECT_EQ(names[r], "rabenseifner") << "rank " << r;
    }
}

// Bruck's rotated scratch holds every block whatever the segment, and allgather has no
// flat row: the limit falls back to the ring (no scratch) on every rank, exact blocks.
TEST(FaultsSim, TempLimitFallsBackFromBruckToTheRing) {
    const int p = 5;
    const size_t words = 512, limit = 4096;
    const hier::Hierarchy flat = hier::Hierarchy::flat(p);
    const int row = hier::algorithmValue(*hier::algorithmByName(HIERAGG_ALLGATHER, "bruck"));
    std::vector<std::vector<int64_t>> send(p), recv(p, std::vector<int64_t>(words * p, -1));
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        for (size_t i = 0; i < words; ++i) send[r].push_back(1000 * r + static_cast<int64_t>(i));
        CollCall c = baseCall(HIERAGG_ALLGATHER, r, p, &flat);
        c.algorithm = row;
        c.args.sbuf = send[r].data();
        c.args.rbuf = recv[r].data();
        c.args.stype = c.args.rtype = &int64Type();
        c.args.scount = c.args.rcount = words;
        c.stype = c.rtype = {8, 0, 8, 0, 8};
        c.plan = std::make_shared<const hier::Plan>(hier::choosePlan(c, hier::CostParams::defaults()));
        calls.push_back(c);
    }
    ASSERT_GT(recipes::buildSchedule(calls[1]).tempBytes(), limit) << "the case must need the fallback";
    std::vector<std::string> names(p);
    sim::SimNetwork net(p);
    auto res = sim::runOne(net, calls, [&](const CollCall& c) {
        std::optional<Schedule> s = recipes::scheduleWithinTempLimit(c, limit);
        if (!s) throw std::runtime_error("no schedule");
        EXPECT_LE(s->tempBytes(), limit) << "rank " << c.rank;
        names[c.rank] = s->algorithm;
        return std::move(*s);
    });
    ASSERT_TRUE(res.ok) << res.error;
    for (int r = 0; r < p; ++r) {
        EXPECT_EQ(names[r], "flat-ring") << "rank " << r;
        for (int s = 0; s < p; ++s)
            for (size_t i = 0; i < words; ++i)
                ASSERT_EQ(recv[r][s * words + i], 1000 * s + static_cast<int64_t>(i)) << r << " " << s << " " << i;
    }
}

// The flat star (4 ranks, root 0) needs no temporary since the root moves blocks to and
// from the user's buffer: under the same limit the gather now fits on every rank.
TEST(FaultsSim, TempLimitGatherFitsAsAStar) {
    const int p = 4;
    hier::Hierarchy h = virtualNodes(p, 2);
    for (int r = 0; r < p; ++r) {
        CollCall c = bigGatherCall(r, p, h);
        const std::optional<Schedule> s = recipes::scheduleWithinTempLimit(c, 8192);
        ASSERT_TRUE(s.has_value()) << "rank " << r;
        EXPECT_EQ(s->tempBytes(), 0u) << "rank " << r;
    }
}
