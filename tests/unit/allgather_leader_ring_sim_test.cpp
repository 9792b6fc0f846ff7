// allgather's leader_ring (and allgatherv's), recursive_doubling and bruck rows on the
// simulator: every rank's block lands at its place in every rbuf (closed form), for
// every decomposition of the data-movement sweep (uneven groups, groups of one, round
// robin: several runs per group), in place, send
// type != recv type, zero counts; only leaders talk across groups, one message per
// run and ring step; no temporary memory.
#include <gtest/gtest.h>

#include <tuple>

#include "DataMovementFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

int64_t value(int src, size_t i) { return 1000 * src + static_cast<int64_t>(i) + 1; }
int rowValue() { return hier::algorithmValue(*hier::algorithmByName(HIERAGG_ALLGATHER, "leader_ring")); }

// Returns messages between different outermost groups (-1 if the row was refused).
int64_t check(int p, const NamedHierarchy& nh, size_t words, bool inPlace, bool pairSend, std::string* algorithm,
              size_t segmentBytes = 64 * 1024, uint64_t* crossBytes = nullptr) {
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        for (size_t i = 0; i < words; ++i) send[r].push_back(value(r, i));
        recv[r].assign(words * p + 2, -7);  // two words past the end must stay untouched
        CollCall c = baseCall(HIERAGG_ALLGATHER, r, p, nh.h.get());
        c.algorithm = rowValue();
        c.segmentBytes = segmentBytes;
        c.args.sbuf = send[r].data();
        c.args.stype = pairSend ? &pairType() : &int64Type();
        c.args.scount = pairSend ? words / 2 : words;
        c.args.rbuf = recv[r].data();
        c.args.rtype = &int64Type();
        c.args.rcount = words;
        if (inPlace) {
            c.args.in_place = 1;
            c.args.sbuf = nullptr;
            c.args.stype = nullptr;
            for (size_t i = 0; i < words; ++i) recv[r][r * words + i] = value(r, i);
        }
        calls.push_back(c);
    }
    if (!hier::unmetNeed(*hier::algorithmByName(HIERAGG_ALLGATHER, "leader_ring"), calls[0]).empty()) return -1;
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << res.error << " p=" << p << " " << nh.name;
    EXPECT_EQ(net.unmatchedMessages(), 0u);
    if (!res.ok) return 0;
    std::vector<int64_t> expect(words * p + 2, -7);
    for (int s = 0; s < p; ++s)
        for (size_t i = 0; i < words; ++i) expect[s * words + i] = value(s, i);
    for (int r = 0; r < p; ++r) EXPECT_EQ(recv[r], expect) << "rank " << r << " p=" << p << " " << nh.name;
    if (algorithm) *algorithm = res.algorithms[0];
    const hier::Hierarchy& h = *nh.h;
    const int top = h.levels() - 1;
    int64_t cross = 0;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
            if (h.groupOf(top, s) != h.groupOf(top, d) && net.traffic(s, d).messages > 0) {
                EXPECT_EQ(h.groupMembers(top, h.groupOf(top, s)).front(), s) << "a non-leader crossed groups";
                cross += static_cast<int64_t>(net.traffic(s, d).messages);
                if (crossBytes) *crossBytes += net.traffic(s, d).bytes;
            }
    return cross;
}

}  // namespace

TEST(AllgatherLeaderRing, EveryDecompositionInPlaceTypesZero) {
    for (int p = 1; p <= 9; ++p)
        for (const auto& nh : dataMovementHierarchies(p)) {
            std::string algorithm;
            if (check(p, nh, 3, false, false, &algorithm) < 0) continue;
            EXPECT_EQ(algorithm, "leader-ring-allgather") << nh.name;
            check(p, nh, 2, true, false, nullptr);
            check(p, nh, 4, false, true, nullptr);
            check(p, nh, 0, false, false, nullptr);
            if (::testing::Test::HasFatalFailure()) return;
        }
}

TEST(AllgatherLeaderRing, OneMessagePerRunAndRingStep) {
    // G groups; the ring moves every other group's runs once into each leader.
    auto expected = [](const hier::Hierarchy& h) {
        const int top = h.levels() - 1, G = h.groupCount(top);
        int64_t runs = 0;
        for (int g = 0; g < G; ++g) {
            const auto& m = h.groupMembers(top, g);
            int rg = 1;
            for (size_t i = 1; i < m.size(); ++i) rg += m[i] != m[i - 1] + 1;
            runs += rg;
        }
        return runs * (G - 1);  // each group's runs reach the G - 1 other leaders
    };
    for (auto [p, block] : {std::pair{8, 4}, std::pair{9, 2}, std::pair{7, 3}}) {
        NamedHierarchy nh{"virtual", std::make_shared<hier::Hierarchy>(virtualNodes(p, block))};
        EXPECT_EQ(check(p, nh, 3, false, false, nullptr), expected(*nh.h)) << p << " " << block;
    }
    NamedHierarchy rr{"roundrobin:2", std::make_shared<hier::Hierarchy>(roundRobin(8, 2))};
    EXPECT_EQ(check(8, rr, 3, false, false, nullptr), expected(*rr.h));
}

TEST(AllgatherLeaderRing, SegmentedRingStepsPipelineAndEveryBlockCrossesOnce) {
    // Segments of 8 or 24 bytes (1 or 3 words): a ring step is cut into many messages, more
    // than the 64 in flight per channel family, so channels wrap; results stay exact, in place
    // too, and every group's block still crosses into each of the G - 1 other leaders exactly
    // once (bytes), in more messages than runs (segments) but at most 64 + runs per step.
    for (auto [p, block, rr] : {std::tuple{8, 2, false}, std::tuple{8, 4, false}, std::tuple{7, 3, false},
                                std::tuple{8, 2, true}, std::tuple{9, 3, true}}) {
        NamedHierarchy nh{rr ? "roundrobin" : "virtual",
                          std::make_shared<hier::Hierarchy>(rr ? roundRobin(p, block) : virtualNodes(p, block))};
        const hier::Hierarchy& h = *nh.h;
        const int G = h.groupCount(0);
        for (size_t seg : {size_t{8}, size_t{24}})
            for (size_t words : {size_t{5}, size_t{200}})
                for (bool inPlace : {false, true}) {
                    uint64_t bytes = 0;
                    const int64_t msgs = check(p, nh, words, inPlace, false, nullptr, seg, &bytes);
                    const std::string what = nh.name + " p=" + std::to_string(p) + " seg=" + std::to_string(seg) +
                                             " words=" + std::to_string(words);
                    EXPECT_EQ(bytes, static_cast<uint64_t>(G - 1) * p * words * 8) << what;
                    int64_t runs = 0;
                    for (int g = 0; g < G; ++g) {
                        const auto& m = h.groupMembers(0, g);
                        runs += 1;
                        for (size_t i = 1; i < m.size(); ++i) runs += m[i] != m[i - 1] + 1;
                    }
                    EXPECT_GT(msgs, runs * (G - 1)) << what << ": not segmented";
                    EXPECT_LE(msgs, (runs + 64 * G) * (G - 1)) << what << ": more segments than the cap";
                    if (::testing::Test::HasFailure()) return;
                }
    }
}

TEST(AllgatherLeaderRing, ScheduleSizeDoesNotGrowWithTheMessage) {
    const int p = 8;
    const hier::Hierarchy h = roundRobin(p, 2);
    sim::SimNetwork net(p);
    for (int r : {0, 1, 2}) {
        size_t steps = 0;
        for (size_t words : {size_t{1} << 16, size_t{1} << 22, size_t{1} << 26}) {
            CollCall c = baseCall(HIERAGG_ALLGATHER, r, p, &h);
            c.algorithm = rowValue();
            c.segmentBytes = 4096;
            c.args.stype = c.args.rtype = &int64Type();
            c.args.scount = c.args.rcount = words;
            describeTypes(c, net.transport(r));
            const Schedule s = recipes::buildSchedule(c);
            EXPECT_EQ(s.tempBytes(), 0u);
            if (steps) EXPECT_EQ(s.steps.size(), steps) << "rank " << r << " words " << words;
            steps = s.steps.size();
            EXPECT_LT(steps, 4000u);
        }
    }
}

TEST(AllgatherLeaderRing, NoTemporaryMemory) {
    const int p = 8;
    const hier::Hierarchy h = virtualNodes(p, 4);
    sim::SimNetwork net(p);
    for (int r = 0; r < p; ++r) {
        CollCall c = baseCall(HIERAGG_ALLGATHER, r, p, &h);
        c.algorithm = rowValue();
        c.args.stype = c.args.rtype = &int64Type();
        c.args.scount = c.args.rcount = size_t{1} << 20;
        describeTypes(c, net.transport(r));
        EXPECT_EQ(recipes::buildSchedule(c).tempBytes(), 0u);
    }
}

namespace {
// Allgatherv with counts (r * 3) % 5 (zeros included); displacements in rank order
// (packed: one run per contiguous group) or reversed with a gap word (one run per rank).
std::string checkV(int p, const hier::Hierarchy& h, bool packed, bool inPlace, int algorithm) {
    std::vector<int> counts(p), displs(p);
    int at = 0;
    for (int i = 0; i < p; ++i) {
        const int r = packed ? i : p - 1 - i;
        counts[r] = (r * 3) % 5;
        displs[r] = at;
        at += counts[r] + (packed ? 0 : 1);
    }
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p, std::vector<int64_t>(at + 1, -7));
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        for (int i = 0; i < counts[r]; ++i) send[r].push_back(value(r, i));
        CollCall c = baseCall(HIERAGG_ALLGATHERV, r, p, &h);
        c.algorithm = algorithm;
        c.args.sbuf = send[r].data();
        c.args.stype = c.args.rtype = &int64Type();
        c.args.scount = counts[r];
        c.args.rbuf = recv[r].data();
        c.args.rcounts = counts.data();
        c.args.rdispls = displs.data();
        if (inPlace) {
            c.args.in_place = 1, c.args.sbuf = nullptr, c.args.stype = nullptr;
            for (int i = 0; i < counts[r]; ++i) recv[r][displs[r] + i] = value(r, i);
        }
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << res.error;
    std::vector<int64_t> expect(at + 1, -7);
    for (int s = 0; s < p; ++s)
        for (int i = 0; i < counts[s]; ++i) expect[displs[s] + i] = value(s, i);
    for (int r = 0; r < p; ++r) EXPECT_EQ(recv[r], expect) << "allgatherv rank " << r << " p=" << p;
    return res.ok ? res.algorithms[0] : "";
}
}  // namespace

TEST(AllgatherLeaderRing, AllgathervForcedAndAutoOnOneRunPerGroup) {
    const int forced = hier::algorithmValue(*hier::algorithmByName(HIERAGG_ALLGATHERV, "leader_ring"));
    for (int p : {2, 5, 8, 9})
        for (const hier::Hierarchy& h : {virtualNodes(p, 3), virtualNodes(p, 1), roundRobin(p, 2), nestedNodes(p, 2, 4)})
            for (bool packed : {true, false})
                for (bool inPlace : {false, true}) {
                    if (h.isTrivial()) continue;
                    EXPECT_EQ(checkV(p, h, packed, inPlace, forced), "leader-ring-allgather");
                    // auto: the leaders' ring when every outermost group is one run (contiguous
                    // ranks and packed displacements), else the staged path; on nodes of equal
                    // size the model may take the multi-leader exchange first
                    // (multileader_allgather_sim_test.cpp).
                    const CollCall probe = baseCall(HIERAGG_ALLGATHERV, 0, p, &h);
                    if (hier::unmetNeed(*hier::algorithmByName(HIERAGG_ALLGATHERV, "multileader"), probe).empty())
                        continue;
                    bool contiguous = true;
                    const int top = h.levels() - 1;
                    for (int g = 0; g < h.groupCount(top); ++g) {
                        const auto& m = h.groupMembers(top, g);
                        contiguous = contiguous && m.back() - m.front() + 1 == static_cast<int>(m.size());
                    }
                    EXPECT_EQ(checkV(p, h, packed, inPlace, 0),
                              packed && contiguous ? "leader-ring-allgather" : "hier-gather+ring+bcast")
                        << "p=" << p << " packed=" << packed;
                }
}

TEST(AllgatherLeaderRing, AllgathervAutoTakesItForLongRunsUnderRoundRobin) {
    // Round robin: one run per rank. Blocks of 1000 words (8000 B) against 4 KiB segments:
    // long runs, the leaders' ring; against 64 KiB segments: the staged path. Nodes of 4 and
    // 3 ranks, so the multi-leader row (equal nodes) does not apply.
    const int p = 7;
    const hier::Hierarchy h = roundRobin(p, 2);
    std::vector<int> counts(p, 1000), displs(p);
    for (int r = 0; r < p; ++r) displs[r] = r * 1000;
    for (size_t seg : {size_t{4096}, size_t{65536}}) {
        sim::SimNetwork net(p);
        std::vector<std::vector<int64_t>> send(p), recv(p, std::vector<int64_t>(p * 1000, -7));
        std::vector<CollCall> calls;
        for (int r = 0; r < p; ++r) {
            for (int i = 0; i < 1000; ++i) send[r].push_back(value(r, i));
            CollCall c = baseCall(HIERAGG_ALLGATHERV, r, p, &h);
            c.segmentBytes = seg;
            c.args.sbuf = send[r].data();
            c.args.stype = c.args.rtype = &int64Type();
            c.args.scount = 1000;
            c.args.rbuf = recv[r].data();
            c.args.rcounts = counts.data();
            c.args.rdispls = displs.data();
            calls.push_back(c);
        }
        auto res = sim::runOne(net, calls, recipeBuilder());
        ASSERT_TRUE(res.ok) << res.error;
        for (int r = 0; r < p; ++r)
            for (int s = 0; s < p; ++s)
                for (int i = 0; i < 1000; ++i) ASSERT_EQ(recv[r][s * 1000 + i], value(s, i)) << r << " " << s;
        EXPECT_EQ(res.algorithms[0], seg == 4096 ? "leader-ring-allgather" : "hier-gather+ring+bcast") << seg;
    }
}

TEST(AllgatherRecursiveDoubling, PowerOfTwoLog2MessagesAndRefusedOtherwise) {
    const int rd = hier::algorithmValue(*hier::algorithmByName(HIERAGG_ALLGATHER, "recursive_doubling"));
    for (int p : {1, 2, 4, 8, 16})
        for (bool inPlace : {false, true})
            for (size_t words : {size_t{0}, size_t{1}, size_t{5}}) {
                sim::SimNetwork net(p);
                std::vector<std::vector<int64_t>> send(p), recv(p, std::vector<int64_t>(words * p + 1, -7));
                std::vector<CollCall> calls;
                for (int r = 0; r < p; ++r) {
                    for (size_t i = 0; i < words; ++i) send[r].push_back(value(r, i));
                    CollCall c = baseCall(HIERAGG_ALLGATHER, r, p, nullptr);
                    c.algorithm = rd;
                    c.args.sbuf = inPlace ? nullptr : send[r].data();
                    c.args.in_place = inPlace;
                    c.args.stype = c.args.rtype = &int64Type();
                    c.args.scount = c.args.rcount = words;
                    c.args.rbuf = recv[r].data();
                    if (inPlace)
                        for (size_t i = 0; i < words; ++i) recv[r][r * words + i] = value(r, i);
                    calls.push_back(c);
                }
                auto res = sim::runOne(net, calls, recipeBuilder());
                ASSERT_TRUE(res.ok) << res.error;
                std::vector<int64_t> expect(words * p + 1, -7);
                for (int s = 0; s < p; ++s)
                    for (size_t i = 0; i < words; ++i) expect[s * words + i] = value(s, i);
                for (int r = 0; r < p; ++r) EXPECT_EQ(recv[r], expect) << "p=" << p << " rank " << r;
                if (words > 0 && p > 1) {
                    EXPECT_EQ(res.algorithms[0], "flat-recursive-doubling");
                    int lg = 0;
                    while ((1 << lg) < p) ++lg;
                    EXPECT_EQ(net.totalMessages(), static_cast<uint64_t>(p * lg));  // vs p (p - 1) for the ring
                }
            }
    CollCall six = baseCall(HIERAGG_ALLGATHER, 0, 6, nullptr);
    EXPECT_EQ(hier::unmetNeed(*hier::algorithmByName(HIERAGG_ALLGATHER, "recursive_doubling"), six),
              "needs a power-of-two size");
}

TEST(AllgatherBruck, AnySizeCeilLog2MessagesScratchOfEveryBlock) {
    const int bruck = hier::algorithmValue(*hier::algorithmByName(HIERAGG_ALLGATHER, "bruck"));
    for (int p = 1; p <= 9; ++p)
        for (bool inPlace : {false, true})
            for (size_t words : {size_t{0}, size_t{1}, size_t{3}}) {
                sim::SimNetwork net(p);
                std::vector<std::vector<int64_t>> send(p), recv(p, std::vector<int64_t>(words * p + 1, -7));
                std::vector<CollCall> calls;
                for (int r = 0; r < p; ++r) {
                    for (size_t i = 0; i < words; ++i) send[r].push_back(value(r, i));
                    CollCall c = baseCall(HIERAGG_ALLGATHER, r, p, nullptr);
                    c.algorithm = bruck;
                    c.args.sbuf = inPlace ? nullptr : send[r].data();
                    c.args.in_place = inPlace;
                    c.args.stype = c.args.rtype = &int64Type();
                    c.args.scount = c.args.rcount = words;
                    c.args.rbuf = recv[r].data();
                    if (inPlace)
                        for (size_t i = 0; i < words; ++i) recv[r][r * words + i] = value(r, i);
                    calls.push_back(c);
                }
                auto res = sim::runOne(net, calls, recipeBuilder());
                ASSERT_TRUE(res.ok) << res.error;
                EXPECT_EQ(net.unmatchedMessages(), 0u);
                std::vector<int64_t> expect(words * p + 1, -7);
                for (int s = 0; s < p; ++s)
                    for (size_t i = 0; i < words; ++i) expect[s * words + i] = value(s, i);
                for (int r = 0; r < p; ++r) EXPECT_EQ(recv[r], expect) << "p=" << p << " rank " << r;
                if (words > 0) {
                    int lg = 0;
                    while ((1 << lg) < p) ++lg;
                    EXPECT_EQ(net.totalMessages(), static_cast<uint64_t>(p * lg)) << p;
                    CollCall c = calls[1 % p];
                    describeTypes(c, net.transport(1 % p));
                    EXPECT_EQ(recipes::buildSchedule(c).tempBytes(), words * 8 * p);
                }
            }
}
