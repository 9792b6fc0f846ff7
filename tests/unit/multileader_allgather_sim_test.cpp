// allgather's and allgatherv's multileader row on the simulator: every rank's block lands
// at its place in every rbuf (closed form) for every decomposition with nodes of equal
// size (round robin, virtual nodes, nested), in place, send type != recv type, zero
// counts, pieces small enough that the per-pair channels wrap; every rank (not one leader
// per node) sends across nodes, only to its column's next member, and every block enters
// each other node exactly once; no temporary memory; the schedule's size does not grow with
// the message; unequal nodes refuse the row; the model picks it on 2 x 4 round robin.
#include <gtest/gtest.h>

#include <algorithm>

#include "DataMovementFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Hierarchy.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

int64_t value(int src, size_t i) { return 7000 * src + static_cast<int64_t>(i) + 3; }
const hier::AlgorithmInfo& row(hieragg_coll_kind k) { return *hier::algorithmByName(k, "multileader"); }

struct Traffic {
    uint64_t crossBytes = 0;
    bool onlyColumnNext = true;  // every message between nodes goes to the sender's column successor
    int crossSenders = 0;        // ranks that sent across nodes
};

// allgatherv when `counts` is given (displacements reversed with a gap word), else allgather
// of `words` words per rank. Returns false if the row was refused.
bool check(int p, const hier::Hierarchy& h, size_t words, bool inPlace, bool pairSend, size_t segment,
           const std::vector<int>* counts, Traffic* tr, int algorithm = -1) {
    const bool v = counts != nullptr;
    const hieragg_coll_kind kind = v ? HIERAGG_ALLGATHERV : HIERAGG_ALLGATHER;
    std::vector<int> cnt(p, static_cast<int>(words)), displs(p);
    if (v) cnt = *counts;
    int at = 0;
    for (int i = 0; i < p; ++i) {
        const int r = v ? p - 1 - i : i;
        displs[r] = at;
        at += cnt[r] + (v ? 1 : 0);
    }
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p, std::vector<int64_t>(at + 2, -7));
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        for (int i = 0; i < cnt[r]; ++i) send[r].push_back(value(r, i));
        CollCall c = baseCall(kind, r, p, &h);
        c.algorithm = algorithm >= 0 ? algorithm : hier::algorithmValue(row(kind));
        c.segmentBytes = segment;
        c.args.sbuf = send[r].data();
        c.args.stype = pairSend ? &pairType() : &int64Type();
        c.args.scount = pairSend ? cnt[r] / 2 : cnt[r];
        c.args.rbuf = recv[r].data();
        c.args.rtype = &int64Type();
        c.args.rcount = words;
        if (v) c.args.rcounts = cnt.data(), c.args.rdispls = displs.data();
        if (inPlace) {
            c.args.in_place = 1, c.args.sbuf = nullptr, c.args.stype = nullptr;
            for (int i = 0; i < cnt[r]; ++i) recv[r][displs[r] + i] = value(r, i);
        }
        calls.push_back(c);
    }
    if (!hier::unmetNeed(row(kind), calls[0]).empty()) return false;
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << res.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u);
    if (!res.ok) return true;
    EXPECT_EQ(res.algorithms[0], "multileader-allgather");
    std::vector<int64_t> expect(at + 2, -7);
    for (int s = 0; s < p; ++s)
        for (int i = 0; i < cnt[s]; ++i) expect[displs[s] + i] = value(s, i);
    for (int r = 0; r < p; ++r) EXPECT_EQ(recv[r], expect) << "rank " << r;
    if (tr) {
        const int top = h.levels() - 1, G = h.groupCount(top);
        for (int s = 0; s < p; ++s) {
            const auto& mine = h.groupMembers(top, h.groupOf(top, s));
            const size_t j = std::find(mine.begin(), mine.end(), s) - mine.begin();
            const int next = h.groupMembers(top, (h.groupOf(top, s) + 1) % G)[j];
            bool sent = false;
            for (int d = 0; d < p; ++d) {
                if (h.groupOf(top, s) == h.groupOf(top, d) || net.traffic(s, d).messages == 0) continue;
                sent = true;
                tr->crossBytes += net.traffic(s, d).bytes;
                if (d != next) tr->onlyColumnNext = false;
            }
            tr->crossSenders += sent;
        }
    }
    return true;
}

}  // namespace

TEST(MultiLeaderAllgather, EveryEqualDecompositionInPlaceTypesZeroSmallPieces) {
    int ran = 0;
    for (int p = 1; p <= 9; ++p)
        for (const auto& nh : dataMovementHierarchies(p)) {
            if (!nh.h) continue;
            for (size_t seg : {size_t{65536}, size_t{8}, size_t{24}}) {
                SCOPED_TRACE(nh.name + " p=" + std::to_string(p) + " seg=" + std::to_string(seg));
                if (!check(p, *nh.h, 3, false, false, seg, nullptr, nullptr)) break;
                ++ran;
                check(p, *nh.h, 40, true, false, seg, nullptr, nullptr);
                check(p, *nh.h, 4, false, true, seg, nullptr, nullptr);
                check(p, *nh.h, 0, false, false, seg, nullptr, nullptr);
                // allgatherv: uneven counts with zeros, blocks in reverse rank order with gaps.
                std::vector<int> counts(p);
                for (int r = 0; r < p; ++r) counts[r] = (r * 7) % 5 * 9;
                check(p, *nh.h, 0, false, false, seg, &counts, nullptr);
                check(p, *nh.h, 0, true, false, seg, &counts, nullptr);
                if (::testing::Test::HasFailure()) return;
            }
        }
    EXPECT_GT(ran, 20);  // the sweep has many equal decompositions (round robin over 2 and 3, ...)
}

TEST(MultiLeaderAllgather, EveryRankCrossesToItsColumnEveryBlockEntersEachNodeOnce) {
    for (auto [p, nodes, rr] : {std::tuple{8, 2, true}, std::tuple{8, 4, false}, std::tuple{9, 3, true},
                                std::tuple{12, 4, true}}) {
        const hier::Hierarchy h = rr ? roundRobin(p, nodes) : virtualNodes(p, p / nodes);
        const int G = h.groupCount(h.levels() - 1);
        for (size_t seg : {size_t{65536}, size_t{16}}) {
            Traffic tr;
            ASSERT_TRUE(check(p, h, 30, false, false, seg, nullptr, &tr));
            // Each of G nodes receives the p - p/G blocks of the other nodes, once each.
            EXPECT_EQ(tr.crossBytes, static_cast<uint64_t>(G) * (p - p / G) * 30 * 8) << p << " " << G;
            EXPECT_TRUE(tr.onlyColumnNext);
            EXPECT_EQ(tr.crossSenders, p) << "every member of a node talks across nodes";
        }
    }
}

TEST(MultiLeaderAllgather, NoTemporariesAndScheduleSizeIndependentOfTheMessage) {
    const int p = 8;
    const hier::Hierarchy h = roundRobin(p, 2);
    sim::SimNetwork net(p);
    for (int r : {0, 1, 5}) {
        size_t steps = 0;
        for (size_t words : {size_t{1} << 16, size_t{1} << 20, size_t{1} << 26}) {
            CollCall c = baseCall(HIERAGG_ALLGATHER, r, p, &h);
            c.algorithm = hier::algorithmValue(row(HIERAGG_ALLGATHER));
            c.segmentBytes = 4096;
            c.args.stype = c.args.rtype = &int64Type();
            c.args.scount = c.args.rcount = words;
            describeTypes(c, net.transport(r));
            const Schedule s = recipes::buildSchedule(c);
            EXPECT_EQ(s.tempBytes(), 0u);
            if (steps) EXPECT_EQ(s.steps.size(), steps) << "rank " << r << " words " << words;
            steps = s.steps.size();
            // 2 blocks held x at most 16 pieces (kMultiLeaderMaxPieces) x (a ring send or receive
            // + 3 forwards + 3 receives), + copy and join.
            EXPECT_LE(steps, 2u * 16 * 8 + 2);
        }
    }
}

TEST(MultiLeaderAllgather, UnequalNodesRefuseTheRow) {
    const hier::Hierarchy h = roundRobin(7, 2);  // nodes of 4 and 3
    CollCall c = baseCall(HIERAGG_ALLGATHER, 0, 7, &h);
    EXPECT_EQ(hier::unmetNeed(row(HIERAGG_ALLGATHER), c), "needs groups of equal size");
    c.args.kind = HIERAGG_ALLGATHERV;
    EXPECT_EQ(hier::unmetNeed(row(HIERAGG_ALLGATHERV), c), "needs groups of equal size");
}

TEST(MultiLeaderAllgather, TheModelPicksItOnRoundRobinNodes) {
    // 2 x 4 round robin, 1 MiB blocks: the auto plan (default costs) is the multi-leader
    // exchange, whose nodes' links carry only the other node's blocks.
    Traffic tr;
    ASSERT_TRUE(check(8, roundRobin(8, 2), size_t{1} << 17, false, false, 65536, nullptr, &tr, 0));
    EXPECT_EQ(tr.crossBytes, uint64_t{2} * 4 * (size_t{1} << 17) * 8);
    // allgatherv (no plan of its own) follows allgather's model for its mean block.
    const std::vector<int> counts(8, 1 << 17);
    ASSERT_TRUE(check(8, roundRobin(8, 2), 0, false, false, 65536, &counts, nullptr, 0));
}

TEST(MultiLeaderAllgather, PiecesPipelineAroundRingsOfMoreThanTwoNodes) {
    // 64 KiB blocks, 64 KiB segments. Two nodes: no block is forwarded between nodes, one
    // piece per block (8 messages cross). Four nodes: blocks travel 3 hops, so each is cut
    // into 4 pieces of 16 KiB and every piece enters each other node once (8 x 3 x 4).
    auto crossMessages = [](const hier::Hierarchy& h, int p) {
        sim::SimNetwork net(p);
        std::vector<std::vector<int64_t>> send(p, std::vector<int64_t>(8192, 1)), recv(p);
        std::vector<CollCall> calls;
        for (int r = 0; r < p; ++r) {
            recv[r].assign(8192 * static_cast<size_t>(p), 0);
            CollCall c = baseCall(HIERAGG_ALLGATHER, r, p, &h);
            c.algorithm = hier::algorithmValue(row(HIERAGG_ALLGATHER));
            c.segmentBytes = 65536;
            c.args.sbuf = send[r].data();
            c.args.rbuf = recv[r].data();
            c.args.stype = c.args.rtype = &int64Type();
            c.args.scount = c.args.rcount = 8192;
            calls.push_back(c);
        }
        EXPECT_TRUE(sim::runOne(net, calls, recipeBuilder()).ok);
        const int top = h.levels() - 1;
        return crossingMessages(net, p, [&](int r) { return h.groupOf(top, r); });
    };
    EXPECT_EQ(crossMessages(roundRobin(8, 2), 8), 8u);
    EXPECT_EQ(crossMessages(virtualNodes(8, 2), 8), 8u * 3 * 4);
}
