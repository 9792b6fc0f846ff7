// gather's and scatter's direct rows on the simulator: results in closed form for every
// decomposition and root, in place, send type != recv type, zero counts; one message per
// non-root rank, of which exactly those of ranks outside the root's node cross nodes (each
// block crosses once: no store-and-forward through a leader); no temporaries and a
// schedule whose size does not depend on the message; the model picks the row for large
// blocks on 2 x 4 round robin.
#include <gtest/gtest.h>

#include "DataMovementFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Hierarchy.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

int64_t value(int owner, size_t i) { return 100000 * owner + static_cast<int64_t>(i) + 11; }

struct Result {
    bool ran = false;
    std::string algorithm;
    uint64_t messages = 0, cross = 0, crossBytes = 0;
};

// Gather (or scatter) of `words` words per rank to `root`; algorithm -1 forces direct.
Result run(hieragg_coll_kind kind, int p, const hier::Hierarchy* h, int root, size_t words, bool inPlace,
           bool pairType_, int algorithm = -1) {
    const hier::AlgorithmInfo& direct = *hier::algorithmByName(kind, "direct");
    const bool gather = kind == HIERAGG_GATHER;
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        const bool isRoot = r == root;
        // gather: every rank sends `words`, the root receives p blocks; scatter: the mirror.
        if (gather) {
            for (size_t i = 0; i < words; ++i) send[r].push_back(value(r, i));
            recv[r].assign(isRoot ? words * p + 1 : 1, -7);
        } else {
            if (isRoot)
                for (int d = 0; d < p; ++d)
                    for (size_t i = 0; i < words; ++i) send[r].push_back(value(d, i));
            recv[r].assign(words + 1, -7);
        }
        CollCall c = baseCall(kind, r, p, h);
        c.algorithm = algorithm >= 0 ? algorithm : hier::algorithmValue(direct);
        c.args.root = root;
        c.args.sbuf = send[r].data();
        c.args.rbuf = recv[r].data();
        c.args.stype = pairType_ ? &pairType() : &int64Type();
        c.args.scount = pairType_ ? words / 2 : words;
        c.args.rtype = &int64Type();
        c.args.rcount = words;
        if (inPlace && isRoot) {
            c.args.in_place = 1;
            if (gather) {
                c.args.sbuf = nullptr, c.args.stype = nullptr;
                for (size_t i = 0; i < words; ++i) recv[r][root * words + i] = value(root, i);
            } else {
                c.args.rbuf = nullptr, c.args.rtype = nullptr;
            }
        }
        calls.push_back(c);
    }
    Result out;
    if (algorithm < 0 && !hier::unmetNeed(direct, calls[0]).empty()) return out;
    out.ran = true;
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << res.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u);
    if (!res.ok) return out;
    out.algorithm = res.algorithms[root];
    for (int r = 0; r < p; ++r) {
        if (gather && r != root) continue;
        std::vector<int64_t> expect(gather ? words * p + 1 : words + 1, -7);
        if (gather) {
            for (int s = 0; s < p; ++s)
                for (size_t i = 0; i < words; ++i) expect[s * words + i] = value(s, i);
        } else if (!(inPlace && r == root)) {
            for (size_t i = 0; i < words; ++i) expect[i] = value(r, i);
        }
        EXPECT_EQ(recv[r], expect) << "rank " << r << " root " << root;
    }
    const int top = h ? h->levels() - 1 : 0;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d) {
            out.messages += net.traffic(s, d).messages;
            if (h && h->groupOf(top, s) != h->groupOf(top, d))
                out.cross += net.traffic(s, d).messages, out.crossBytes += net.traffic(s, d).bytes;
        }
    return out;
}

}  // namespace

TEST(DirectRooted, EveryDecompositionRootInPlaceTypesZero) {
    int ran = 0;
    for (hieragg_coll_kind kind : {HIERAGG_GATHER, HIERAGG_SCATTER})
        for (int p = 2; p <= 9; ++p)
            for (const auto& nh : dataMovementHierarchies(p))
                for (int root = 0; root < p; root += 2) {
                    SCOPED_TRACE(nh.name + " p=" + std::to_string(p) + " root=" + std::to_string(root) +
                                 (kind == HIERAGG_GATHER ? " gather" : " scatter"));
                    const Result r = run(kind, p, nh.h.get(), root, 3, false, false);
                    if (!r.ran) continue;  // no decomposition: the row needs one
                    ++ran;
                    EXPECT_EQ(r.algorithm, kind == HIERAGG_GATHER ? "direct-gather" : "direct-scatter");
                    EXPECT_EQ(r.messages, static_cast<uint64_t>(p - 1));
                    const hier::Hierarchy& h = *nh.h;
                    const int top = h.levels() - 1;
                    const uint64_t remote = p - h.groupMembers(top, h.groupOf(top, root)).size();
                    EXPECT_EQ(r.cross, remote) << "only blocks of other nodes cross, each once";
                    EXPECT_EQ(r.crossBytes, remote * 3 * 8);
                    run(kind, p, nh.h.get(), root, 4, true, false);
                    run(kind, p, nh.h.get(), root, 4, false, true);
                    EXPECT_EQ(run(kind, p, nh.h.get(), root, 0, false, false).messages, 0u);
                    if (::testing::Test::HasFailure()) return;
                }
    EXPECT_GT(ran, 50);
}

TEST(DirectRooted, NoTemporariesScheduleIndependentOfTheMessage) {
    const int p = 8;
    const hier::Hierarchy h = roundRobin(p, 2);
    sim::SimNetwork net(p);
    for (hieragg_coll_kind kind : {HIERAGG_GATHER, HIERAGG_SCATTER})
        for (int r : {0, 3}) {
            size_t steps = 0;
            for (size_t words : {size_t{1}, size_t{1} << 16, size_t{1} << 24}) {
                CollCall c = baseCall(kind, r, p, &h);
                c.algorithm = hier::algorithmValue(*hier::algorithmByName(kind, "direct"));
                c.args.root = 0;
                c.args.stype = c.args.rtype = &int64Type();
                c.args.scount = c.args.rcount = words;
                describeTypes(c, net.transport(r));
                const Schedule s = recipes::buildSchedule(c);
                EXPECT_EQ(s.tempBytes(), 0u);
                if (steps) EXPECT_EQ(s.steps.size(), steps);
                steps = s.steps.size();
                EXPECT_EQ(steps, r == 0 ? static_cast<size_t>(p) : 1u);  // root: p - 1 messages + own copy
            }
        }
}

TEST(DirectRooted, TheModelPicksItForLargeBlocks) {
    // 2 x 4 round robin, 512 KiB per rank: direct (the k-nomial rows would send the other
    // node's 2 MiB to its leader first and on from there); results checked by run().
    const hier::Hierarchy h = roundRobin(8, 2);
    for (hieragg_coll_kind kind : {HIERAGG_GATHER, HIERAGG_SCATTER}) {
        const Result r = run(kind, 8, &h, 0, size_t{1} << 16, false, false, 0);
        EXPECT_EQ(r.algorithm, kind == HIERAGG_GATHER ? "direct-gather" : "direct-scatter");
        EXPECT_EQ(r.cross, 4u);
    }
}
