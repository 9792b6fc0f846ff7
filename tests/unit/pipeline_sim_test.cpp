// The pipelined hierarchical rows (bcast/reduce "hier_pipeline") on the simulator:
// results against closed forms at several sizes, decompositions and roots; the bytes
// that cross between nodes (each node's link carries the message once); temporaries
// bounded by segment x window whatever the message size; a 256 MiB broadcast whose
// schedule stays a few steps; and the model choosing the pipeline for long messages.
#include <gtest/gtest.h>

#include <algorithm>

#include "ReductionFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

struct Layout {
    std::string name;
    hier::Hierarchy h;
    int top = 0;  // level whose groups are the "nodes" (outermost)
};
std::vector<Layout> layouts() {
    return {{"4x2 block", virtualNodes(8, 2), 0},
            {"2x4 roundrobin", roundRobin(8, 2), 0},
            {"7 ranks virtual:3", virtualNodes(7, 3), 0},
            {"12 ranks nested 2/6", nestedNodes(12, 2, 6), 1}};
}

int rowOf(hieragg_coll_kind coll) {
    const hier::AlgorithmInfo* a = hier::algorithmByName(coll, "hier_pipeline");
    EXPECT_NE(a, nullptr);
    return a ? hier::algorithmValue(*a) : 0;
}

// Bytes sent from ranks outside node g to ranks inside it, and from inside to outside.
struct NodeTraffic {
    uint64_t in = 0, out = 0, messagesIn = 0;
};
NodeTraffic nodeTraffic(const sim::SimNetwork& net, const Layout& l, int group) {
    NodeTraffic t;
    const int p = l.h.commSize();
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d) {
            const bool sIn = l.h.groupOf(l.top, s) == group, dIn = l.h.groupOf(l.top, d) == group;
            if (sIn == dIn) continue;
            (dIn ? t.in : t.out) += net.traffic(s, d).bytes;
            if (dIn) t.messagesIn += net.traffic(s, d).messages;
        }
    return t;
}

void checkBcast(const Layout& l, size_t count, int root, size_t segmentCap) {
    const int p = l.h.commSize();
    const size_t bytes = count * 8;
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> buf(p, std::vector<int64_t>(count, -1));
    for (size_t i = 0; i < count; ++i) buf[root][i] = 7 * root + 3 * static_cast<int64_t>(i);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        CollCall c = baseCall(HIERAGG_BCAST, r, p, &l.h);
        c.args.rbuf = buf[r].data();
        c.args.rcount = count;
        c.args.stype = c.args.rtype = &int64Type();
        c.args.root = root;
        c.segmentBytes = segmentCap;
        c.algorithm = rowOf(HIERAGG_BCAST);
        calls.push_back(c);
    }
    const std::string what = "bcast " + l.name + " count=" + std::to_string(count) + " root=" + std::to_string(root);
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << what << ": " << res.error;
    EXPECT_NE(res.algorithms[0].find("hier_pipeline"), std::string::npos) << what << ": " << res.algorithms[0];
    for (int r = 0; r < p; ++r)
        for (size_t i = 0; i < count; ++i)
            ASSERT_EQ(buf[r][i], 7 * root + 3 * static_cast<int64_t>(i)) << what << " rank " << r << " i " << i;
    // The segment never exceeds the cap, so there are at least ceil(bytes / cap) fragments;
    // every rank but the root receives each byte exactly once.
    const uint64_t fragments = (bytes + segmentCap - 1) / segmentCap;
    uint64_t received = 0, messages = 0;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d) received += net.traffic(s, d).bytes, messages += net.traffic(s, d).messages;
    EXPECT_EQ(received, static_cast<uint64_t>(p - 1) * bytes) << what;
    EXPECT_GE(messages, static_cast<uint64_t>(p - 1) * fragments) << what;
    // Each node's inbound link carries the message once (none into the root's node).
    const int nodes = l.h.groupCount(l.top);
    for (int g = 0; g < nodes; ++g) {
        const NodeTraffic t = nodeTraffic(net, l, g);
        const bool rootHere = l.h.groupOf(l.top, root) == g;
        EXPECT_EQ(t.in, rootHere ? 0u : bytes) << what << " node " << g;
        EXPECT_LE(t.out, bytes) << what << " node " << g << ": at most one copy leaves a node (a chain)";
    }
}

// Closed form of rankInput (ReductionFixture.hpp) summed over p ranks, element i.
int64_t rankInputSum(int p, size_t i) {
    int64_t expect = 0;
    for (int r = 0; r < p; ++r) {
        switch (i % 4) {
        case 0: expect += 1 + r; break;
        case 1: expect += 3 * r + static_cast<int64_t>(i); break;
        case 2: expect += (r * 7 + static_cast<int64_t>(i)) % 5; break;
        default: expect += 2 + (r % 3); break;
        }
    }
    return expect;
}

void checkReduce(const Layout& l, size_t count, int root, size_t segmentCap, bool inPlace) {
    const int p = l.h.commSize();
    const size_t bytes = count * 8;
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> in(p), out(p, std::vector<int64_t>(count, -5));
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, count);
        CollCall c = reductionCall(HIERAGG_REDUCE, r, p, &l.h, sumOp(), count, segmentCap, rowOf(HIERAGG_REDUCE));
        c.args.root = root;
        if (inPlace && r == root) {
            out[r] = in[r];
            c.args.in_place = 1;
            c.args.sbuf = nullptr;
        } else {
            c.args.sbuf = in[r].data();
        }
        c.args.rbuf = out[r].data();
        calls.push_back(c);
    }
    const std::string what = "reduce " + l.name + " count=" + std::to_string(count) + " root=" +
                             std::to_string(root) + (inPlace ? " in-place" : "");
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << what << ": " << res.error;
    EXPECT_NE(res.algorithms[0].find("hier_pipeline"), std::string::npos) << what << ": " << res.algorithms[0];
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(out[root][i], rankInputSum(p, i)) << what << " i " << i;
    // Every rank but the root sends each element once; each node's outbound link carries
    // the vector once (none out of the root's node).
    uint64_t sent = 0;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d) sent += net.traffic(s, d).bytes;
    EXPECT_EQ(sent, static_cast<uint64_t>(p - 1) * bytes) << what;
    for (int g = 0; g < l.h.groupCount(l.top); ++g) {
        const NodeTraffic t = nodeTraffic(net, l, g);
        EXPECT_EQ(t.out, l.h.groupOf(l.top, root) == g ? 0u : bytes) << what << " node " << g;
    }
}

void checkAllreduce(const Layout& l, size_t count, size_t segmentCap, bool inPlace) {
    const int p = l.h.commSize();
    const size_t bytes = count * 8;
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> in(p), out(p, std::vector<int64_t>(count, -5));
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, count);
        CollCall c =
            reductionCall(HIERAGG_ALLREDUCE, r, p, &l.h, sumOp(), count, segmentCap, rowOf(HIERAGG_ALLREDUCE));
        if (inPlace) {
            out[r] = in[r];
            c.args.in_place = 1;
            c.args.sbuf = nullptr;
        } else {
            c.args.sbuf = in[r].data();
        }
        c.args.rbuf = out[r].data();
        calls.push_back(c);
    }
    const std::string what = "allreduce " + l.name + " count=" + std::to_string(count) + (inPlace ? " in-place" : "");
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << what << ": " << res.error;
    EXPECT_NE(res.algorithms[0].find("hier_pipeline"), std::string::npos) << what << ": " << res.algorithms[0];
    for (int r = 0; r < p; ++r)
        for (size_t i = 0; i < count; ++i) ASSERT_EQ(out[r][i], rankInputSum(p, i)) << what << " rank " << r << " i " << i;
    // Up and down the tree: each element crosses each of the p - 1 edges twice. Between
    // nodes the leaders form a chain from rank 0's node: its two ends' links carry the
    // vector once each way, every middle node's twice (partials up, results down).
    uint64_t sent = 0;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d) sent += net.traffic(s, d).bytes;
    EXPECT_EQ(sent, 2 * static_cast<uint64_t>(p - 1) * bytes) << what;
    const int nodes = l.h.groupCount(l.top);
    int middles = 0;
    for (int g = 0; g < nodes; ++g) {
        const NodeTraffic t = nodeTraffic(net, l, g);
        EXPECT_EQ(t.in, t.out) << what << " node " << g;
        if (l.h.groupOf(l.top, 0) == g) EXPECT_EQ(t.in, bytes) << what << " rank 0's node is an end";
        EXPECT_TRUE(t.in == bytes || t.in == 2 * bytes) << what << " node " << g << ": " << t.in;
        middles += t.in == 2 * bytes;
    }
    EXPECT_EQ(middles, std::max(nodes - 2, 0)) << what;
}

// Every rank's schedule for a call of `count` int64 (not run: no buffers needed).
std::vector<Schedule> schedules(const hier::Hierarchy& h, hieragg_coll_kind kind, size_t count, size_t segmentCap) {
    const int p = h.commSize();
    sim::SimNetwork net(p);
    std::vector<Schedule> out;
    for (int r = 0; r < p; ++r) {
        CollCall c = reductionCall(kind, r, p, &h, sumOp(), count, segmentCap, rowOf(kind));
        c.args.root = 0;
        describeTypes(c, net.transport(r));
        out.push_back(recipes::buildSchedule(c));
    }
    return out;
}

}  // namespace

TEST(PipelineRows, BcastResultsAndNodeLinks) {
    for (const Layout& l : layouts())
        for (size_t count : {size_t{1}, size_t{1000}, size_t{20000}})
            for (int root : {0, 3, l.h.commSize() - 1}) checkBcast(l, count, root, 4096);
}

TEST(PipelineRows, ReduceResultsAndNodeLinks) {
    for (const Layout& l : layouts())
        for (size_t count : {size_t{1}, size_t{999}, size_t{12000}})
            for (int root : {0, 5}) {
                checkReduce(l, count, root, 2048, false);
                checkReduce(l, count, root, 2048, true);
            }
}

TEST(PipelineRows, AllreduceResultsAndNodeLinks) {
    for (const Layout& l : layouts())
        for (size_t count : {size_t{1}, size_t{999}, size_t{12000}}) {
            checkAllreduce(l, count, 2048, false);
            checkAllreduce(l, count, 2048, true);
        }
}

// More fragments than a stage has channels (256): fragments reuse channels in order.
TEST(PipelineRows, ManyFragmentsWrapTheChannels) {
    const Layout l{"4x2 block", virtualNodes(8, 2), 0};
    checkBcast(l, 1 << 16, 2, 1024);  // 512 KiB in 512 fragments
    checkReduce(l, 1 << 15, 6, 512, false);
    checkAllreduce(l, 1 << 15, 512, true);
}

TEST(PipelineRows, TemporariesBoundedBySegmentTimesWindow) {
    const hier::Hierarchy h = virtualNodes(8, 2);
    const size_t seg = 4096;
    const auto small = schedules(h, HIERAGG_REDUCE, 1 << 14, seg);   // 128 KiB
    const auto large = schedules(h, HIERAGG_REDUCE, 1 << 20, seg);   // 8 MiB
    for (int r = 0; r < 8; ++r) {
        EXPECT_EQ(small[r].tempBytes(), large[r].tempBytes()) << "rank " << r << ": grows with the message";
        // A rank has at most 2 children here (one in its node, the next leader).
        EXPECT_LE(large[r].tempBytes(), 2 * 8 * seg) << "rank " << r;
        EXPECT_EQ(large[r].pipelines.at(0).window, 8u);
    }
    EXPECT_GT(large[0].tempBytes(), 0u);  // the root combines its children's fragments
    for (const Schedule& s : schedules(h, HIERAGG_BCAST, 1 << 20, seg))
        EXPECT_EQ(s.tempBytes(), 0u) << "a contiguous broadcast streams in the user buffer";
}

TEST(PipelineRows, HugeBcastScheduleStaysSmall) {
    const hier::Hierarchy h = virtualNodes(8, 2);
    const size_t count = (size_t{256} << 20) / 8;  // 256 MiB of int64
    const size_t seg = 16 * 1024;  // below kMaxFragmentBytes: the model takes the cap
    for (const Schedule& s : schedules(h, HIERAGG_BCAST, count, seg)) {
        ASSERT_EQ(s.pipelines.size(), 1u) << s.algorithm;
        const FragmentPipeline& pl = s.pipelines[0];
        EXPECT_LE(s.steps.size(), 8u) << s.algorithm;
        EXPECT_EQ(pl.fragments, (size_t{256} << 20) / seg);
        EXPECT_EQ(s.executedSteps(), pl.fragments * pl.templateSize() +
                                         (s.steps.size() - pl.templateSize()));
    }
}

TEST(PipelineRows, ModelPicksThePipelineForLongMessages) {
    const hier::Hierarchy h = virtualNodes(8, 2);
    sim::SimNetwork net(8);
    auto planFor = [&](hieragg_coll_kind kind, size_t count) {
        CollCall c = reductionCall(kind, 0, 8, &h, sumOp(), count, 64 * 1024, 0);
        describeTypes(c, net.transport(0));
        return hier::choosePlan(c, hier::CostParams::defaults());
    };
    const hier::Plan big = planFor(HIERAGG_BCAST, (4 << 20) / 8);
    ASSERT_EQ(big.mode, hier::Plan::Mode::Whole) << big.describe();
    EXPECT_STREQ(big.stages[0].algo->name, "hier_pipeline") << big.describe();
    EXPECT_NE(big.describe().find("pred="), std::string::npos);
    EXPECT_LE(big.stages[0].segmentBytes, 32u * 1024);  // kMaxFragmentBytes
    const hier::Plan bigReduce = planFor(HIERAGG_REDUCE, (4 << 20) / 8);
    EXPECT_STREQ(bigReduce.stages.at(0).algo->name, "hier_pipeline") << bigReduce.describe();
    const hier::Plan tiny = planFor(HIERAGG_BCAST, 1);
    for (const auto& s : tiny.stages)
        if (s.algo) EXPECT_STRNE(s.algo->name, "hier_pipeline") << tiny.describe();
}
