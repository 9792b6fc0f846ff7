// Gather and gatherv on the simulator: every size 1..9, every root, every
// hierarchy of DataMovementFixture, in place, zero counts, send type != recv
// type; the root's buffer is compared with values computed from (rank, index)
// and no other rank's receive buffer may be touched.
#include <gtest/gtest.h>

#include "DataMovementFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int64_t kUntouched = -7;
int64_t value(int src, size_t i) { return 1000 * src + static_cast<int64_t>(i); }

struct GatherCase {
    size_t words = 3;       // int64 words per rank
    bool pairSend = false;  // senders use the 16-byte type (words must be even)
    bool inPlace = false;
    int algorithm = 0;
};

void checkGather(int p, const NamedHierarchy& nh, int root, const GatherCase& k) {
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        for (size_t i = 0; i < k.words; ++i) send[r].push_back(value(r, i));
        recv[r].assign(r == root ? p * k.words : 4, kUntouched);
        CollCall c = baseCall(HIERAGG_GATHER, r, p, nh.h.get());
        c.algorithm = k.algorithm;
        c.args.root = root;
        c.args.sbuf = send[r].data();
        c.args.stype = k.pairSend ? &pairType() : &int64Type();
        c.args.scount = k.pairSend ? k.words / 2 : k.words;
        c.args.rbuf = recv[r].data();
        c.args.rtype = &int64Type();
        c.args.rcount = r == root ? k.words : 999;  // significant only at the root
        if (r == root && k.inPlace) {
            c.args.in_place = 1;
            c.args.sbuf = nullptr;
            c.args.stype = nullptr;
            c.args.scount = 0;
            for (size_t i = 0; i < k.words; ++i) recv[r][root * k.words + i] = value(root, i);
        }
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error << " p=" << p << " root=" << root << " h=" << nh.name;
    for (int r = 0; r < p; ++r) {
        if (r == root) {
            for (int src = 0; src < p; ++src)
                for (size_t i = 0; i < k.words; ++i)
                    ASSERT_EQ(recv[r][src * k.words + i], value(src, i))
                        << "p=" << p << " root=" << root << " h=" << nh.name << " src=" << src << " i=" << i;
        } else {
            for (int64_t v : recv[r]) ASSERT_EQ(v, kUntouched) << "rank " << r << " rbuf written";
        }
    }
}

void checkGatherv(int p, const NamedHierarchy& nh, int root, bool inPlace, bool pairSend) {
    // Counts vary by rank (some zero) and displacements run in reverse rank order with gaps.
    auto words = [&](int r) -> size_t { return pairSend ? 2 * (r % 3) : static_cast<size_t>((r * 7) % 4); };
    std::vector<int> counts(p), displs(p);
    int at = 0;
    for (int r = p - 1; r >= 0; --r) {
        counts[r] = static_cast<int>(words(r));
        displs[r] = at;
        at += counts[r] + 1;  // a gap word that must stay untouched
    }
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        for (size_t i = 0; i < words(r); ++i) send[r].push_back(value(r, i));
        recv[r].assign(r == root ? at : 4, kUntouched);
        CollCall c = baseCall(HIERAGG_GATHERV, r, p, nh.h.get());
        c.args.root = root;
        c.args.sbuf = send[r].data();
        c.args.stype = pairSend ? &pairType() : &int64Type();
        c.args.scount = pairSend ? words(r) / 2 : words(r);
        c.args.rbuf = recv[r].data();
        c.args.rtype = &int64Type();
        if (r == root) {
            c.args.rcounts = counts.data();
            c.args.rdispls = displs.data();
            if (inPlace) {
                c.args.in_place = 1;
                c.args.sbuf = nullptr;
                for (size_t i = 0; i < words(r); ++i) recv[r][displs[r] + i] = value(r, i);
            }
        }
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error << " p=" << p << " root=" << root;
    std::vector<int64_t> expect(at, kUntouched);
    for (int src = 0; src < p; ++src)
        for (size_t i = 0; i < words(src); ++i) expect[displs[src] + i] = value(src, i);
    EXPECT_EQ(recv[root], expect) << "p=" << p << " root=" << root;
}

}  // namespace

TEST(GatherSim, EverySizeRootAndHierarchy) {
    for (int p = 1; p <= 9; ++p)
        for (const auto& nh : dataMovementHierarchies(p))
            for (int root = 0; root < p; ++root) checkGather(p, nh, root, {});
}

TEST(GatherSim, InPlaceAtRoot) {
    for (int p : {1, 2, 5, 8})
        for (const auto& nh : dataMovementHierarchies(p))
            for (int root = 0; root < p; ++root) checkGather(p, nh, root, {4, false, true, 0});
}

TEST(GatherSim, SendTypeDiffersFromRecvType) {
    for (int p : {3, 7, 9})
        for (const auto& nh : dataMovementHierarchies(p))
            for (int root = 0; root < p; ++root) checkGather(p, nh, root, {4, true, false, 0});
}

TEST(GatherSim, ZeroCountSendsNothing) {
    for (int p : {1, 4, 6}) {
        for (const auto& nh : dataMovementHierarchies(p)) checkGather(p, nh, p - 1, {0, false, false, 0});
    }
}

TEST(GatherSim, FlatOverrideIgnoresDecomposition) {
    auto h = std::make_shared<hier::Hierarchy>(virtualNodes(7, 3));
    for (int root = 0; root < 7; ++root) checkGather(7, {"virtual3-flat", h}, root, {2, false, false, 2});
}

TEST(GatherSim, EachNonRootLeaderSendsOneMessageOverTheLeaderSpace) {
    for (int p : {6, 8, 9}) {
        for (int block : {2, 3, 4}) {
            hier::Hierarchy h = virtualNodes(p, block);
            for (int root = 0; root < p; ++root) {
                sim::SimNetwork net(p);
                std::vector<std::vector<int64_t>> send(p, std::vector<int64_t>(2, 1)), recv(p, std::vector<int64_t>(2 * p));
                std::vector<CollCall> calls;
                for (int r = 0; r < p; ++r) {
                    CollCall c = baseCall(HIERAGG_GATHER, r, p, &h);
                    // The k-nomial row (auto may take `direct`: direct_rooted_sim_test.cpp).
                    c.algorithm = hier::algorithmValue(*hier::algorithmByName(HIERAGG_GATHER, "knomial"));
                    c.args.root = root;
                    c.args.sbuf = send[r].data();
                    c.args.rbuf = recv[r].data();
                    c.args.stype = c.args.rtype = &int64Type();
                    c.args.scount = c.args.rcount = 2;
                    calls.push_back(c);
                }
                ASSERT_TRUE(sim::runOne(net, calls, recipeBuilder()).ok);
                const int groups = (p + block - 1) / block;
                EXPECT_EQ(crossingMessages(net, p, [&](int r) { return r / block; }), uint64_t(groups - 1))
                    << "p=" << p << " block=" << block << " root=" << root;
                EXPECT_EQ(net.totalMessages(), uint64_t(p - 1));  // one message per non-root rank
                // Exactly one message leaves each non-root group, sent by its leader, and it
                // carries at least the whole group's blocks (more if it forwards other leaders').
                const int rootGroup = root / block;
                for (int src = 0; src < p; ++src) {
                    uint64_t out = 0, bytes = 0;
                    for (int d = 0; d < p; ++d)
                        if (d / block != src / block) out += net.traffic(src, d).messages, bytes += net.traffic(src, d).bytes;
                    const bool leader = src % block == 0 && src / block != rootGroup;
                    EXPECT_EQ(out, leader ? 1u : 0u) << "rank " << src << " p=" << p << " block=" << block;
                    if (leader) EXPECT_GE(bytes, uint64_t(std::min(block, p - src)) * 16);
                }
            }
        }
    }
}

TEST(GatherSim, SeveralGathersInFlight) {
    const int p = 7;
    hier::Hierarchy h = virtualNodes(p, 3);
    sim::SimNetwork net(p);
    const int calls = 3;
    std::vector<std::vector<std::vector<int64_t>>> send(calls), recv(calls);
    std::vector<std::vector<CollCall>> all(p);
    for (int k = 0; k < calls; ++k) {
        send[k].resize(p);
        recv[k].assign(p, std::vector<int64_t>(2 * p, kUntouched));
        for (int r = 0; r < p; ++r) {
            send[k][r] = {value(r, 0) + 100000 * k, value(r, 1) + 100000 * k};
            CollCall c = baseCall(HIERAGG_GATHER, r, p, &h);
            c.args.root = (2 * k + 1) % p;
            c.args.sbuf = send[k][r].data();
            c.args.rbuf = recv[k][r].data();
            c.args.stype = c.args.rtype = &int64Type();
            c.args.scount = c.args.rcount = 2;
            all[r].push_back(c);
        }
    }
    auto res = sim::run(net, all, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error;
    for (int k = 0; k < calls; ++k) {
        const int root = (2 * k + 1) % p;
        for (int src = 0; src < p; ++src)
            for (int i = 0; i < 2; ++i) EXPECT_EQ(recv[k][root][2 * src + i], value(src, i) + 100000 * k);
    }
}

TEST(GathervSim, UnevenCountsReversedDisplacements) {
    for (int p = 1; p <= 9; ++p)
        for (const auto& nh : dataMovementHierarchies(p))
            for (int root = 0; root < p; ++root) checkGatherv(p, nh, root, false, false);
}

TEST(GathervSim, InPlaceAndDifferentTypes) {
    for (int p : {2, 5, 8})
        for (int root = 0; root < p; ++root) {
            checkGatherv(p, {"none", nullptr}, root, true, false);
            checkGatherv(p, {"none", nullptr}, root, false, true);
        }
}

// Intercommunicators: group A (na ranks) and B (nb); the root is in A, every B rank
// sends its block; A's other ranks pass HIERAGG_PROC_NULL and do nothing.
#include "InterSim.hpp"

namespace {
void checkInterGather(int na, int nb, int rootInA, bool vector) {
    sim::SimNetwork net(na + nb);
    std::vector<CollCall> calls(na + nb);
    std::vector<std::vector<int64_t>> send(na + nb), recv(na + nb);
    std::vector<int> counts(nb), displs(nb);
    int at = 0;
    for (int r = nb - 1; r >= 0; --r) counts[r] = vector ? r % 3 : 2, displs[r] = at, at += counts[r] + 1;
    for (int g = 0; g < na + nb; ++g) {
        const bool inA = g < na;
        CollCall& c = calls[g];
        c.args.kind = vector ? HIERAGG_GATHERV : HIERAGG_GATHER;
        c.inter = true;
        c.rank = inA ? g : g - na;
        c.size = inA ? na : nb;
        c.remoteSize = inA ? nb : na;
        c.args.stype = c.args.rtype = &int64Type();
        recv[g].assign(at, kUntouched);
        if (inA) {
            c.args.root = c.rank == rootInA ? HIERAGG_ROOT : HIERAGG_PROC_NULL;
            c.args.rbuf = recv[g].data();
            c.args.rcount = 2;
            c.args.rcounts = counts.data();
            c.args.rdispls = displs.data();
        } else {
            for (int i = 0; i < counts[c.rank]; ++i) send[g].push_back(value(c.rank, i));
            c.args.root = rootInA;
            c.args.sbuf = send[g].data();
            c.args.scount = counts[c.rank];
        }
    }
    ASSERT_EQ(runInter(net, na, calls), "");
    for (int g = 0; g < na; ++g) {
        std::vector<int64_t> expect(at, kUntouched);
        if (g == rootInA)
            for (int src = 0; src < nb; ++src)
                for (int i = 0; i < counts[src]; ++i) expect[vector ? displs[src] + i : 2 * src + i] = value(src, i);
        if (!vector && g == rootInA) expect.resize(at, kUntouched);
        std::vector<int64_t> got = recv[g];
        if (!vector && g == rootInA) {
            // gather places block src at src*rcount: compare that prefix.
            for (int src = 0; src < nb; ++src)
                for (int i = 0; i < 2; ++i) ASSERT_EQ(got[2 * src + i], value(src, i)) << "src " << src;
        } else {
            ASSERT_EQ(got, expect) << "A rank " << g;
        }
    }
}
}  // namespace

TEST(GatherSim, Intercommunicator) {
    for (int na : {1, 2, 3})
        for (int nb : {1, 4})
            for (int root = 0; root < na; ++root) checkInterGather(na, nb, root, false);
}

TEST(GathervSim, Intercommunicator) {
    for (int na : {1, 3})
        for (int nb : {2, 5})
            for (int root = 0; root < na; ++root) checkInterGather(na, nb, root, true);
}

// Flat to root 0 (every child's subtree a run of consecutive ranks): each run lands in the
// root's receive buffer as it arrives, so the root's schedule has no temporary (before: an
// n-block packed copy, then unpacked) and one receive per child.
TEST(GatherSim, FlatRootReceivesIntoTheUserBuffer) {
    const int p = 8;
    const size_t words = 4;
    std::vector<int64_t> send(words, 1), recv(p * words, 0);
    sim::SimNetwork net(p);
    CollCall c = baseCall(HIERAGG_GATHER, 0, p, nullptr);
    c.args.root = 0;
    c.args.sbuf = send.data();
    c.args.stype = c.args.rtype = &int64Type();
    c.args.scount = c.args.rcount = words;
    c.args.rbuf = recv.data();
    describeTypes(c, net.transport(0));
    const Schedule s = recipeBuilder()(c);
    EXPECT_TRUE(s.temps.empty()) << s.temps.size() << " temporaries at the root";
    size_t recvs = 0;
    for (const auto& st : s.steps) recvs += st.kind == StepKind::Recv;
    const MemberTree t = hier::planOf(c)->stages.at(0).shape.build(p, 0);
    EXPECT_EQ(recvs, t.children[0].size());
    for (int root = 0; root < p; ++root) checkGather(p, {"flat", nullptr}, root, {});
}
