// Alltoall, alltoallv and alltoallw on the simulator: every size 1..9, every
// hierarchy, both algorithms, in place, zero counts, send type != recv type,
// per-peer types, displacements out of rank order; value = 1000*src + 10*dst + i.
#include <gtest/gtest.h>

#include "DataMovementFixture.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int64_t kUntouched = -7;
int64_t value(int src, int dst, size_t i) { return 1000 * src + 10 * dst + static_cast<int64_t>(i); }

void checkAlltoall(int p, const NamedHierarchy& nh, size_t words, bool inPlace, bool pairSend, int algorithm) {
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        for (int d = 0; d < p; ++d)
            for (size_t i = 0; i < words; ++i) send[r].push_back(value(r, d, i));
        recv[r].assign(p * words, kUntouched);
        CollCall c = baseCall(HIERAGG_ALLTOALL, r, p, nh.h.get());
        c.algorithm = algorithm;
        c.args.sbuf = send[r].data();
        c.args.stype = pairSend ? &pairType() : &int64Type();
        c.args.scount = pairSend ? words / 2 : words;
        c.args.rbuf = recv[r].data();
        c.args.rtype = &int64Type();
        c.args.rcount = words;
        if (inPlace) {
            recv[r] = send[r];
            c.args.rbuf = recv[r].data();
            c.args.in_place = 1;
            c.args.sbuf = nullptr;
            c.args.stype = nullptr;
        }
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error << " p=" << p << " h=" << nh.name << " algo=" << algorithm;
    for (int r = 0; r < p; ++r)
        for (int src = 0; src < p; ++src)
            for (size_t i = 0; i < words; ++i)
                ASSERT_EQ(recv[r][src * words + i], value(src, r, i))
                    << "rank " << r << " src " << src << " p=" << p << " h=" << nh.name << " algo=" << algorithm;
}

// Counts from src to dst: (src + 2*dst) % 4 words (zeros included); displacements
// in reverse peer order with a gap word.
size_t vcount(int src, int dst) { return static_cast<size_t>((src + 2 * dst) % 4); }

void checkAlltoallv(int p, bool inPlace, bool w) {
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p);
    std::vector<std::vector<int>> scounts(p), sdispls(p), rcounts(p), rdispls(p);
    std::vector<std::vector<void*>> stypes(p), rtypes(p);
    std::vector<size_t> rwords(p);
    std::vector<CollCall> calls;
    // alltoallw: blocks to/from even peers travel as int64, odd peers as 16-byte pairs
    // on the sending side (so the pair type meets int64 on the other end).
    auto isPair = [&](int peer) { return w && peer % 2 == 1; };
    // In place needs the same count both ways, so it uses a symmetric pattern.
    auto words = [&](int src, int dst) { return inPlace ? static_cast<size_t>((src + dst) % 4) : vcount(src, dst); };
    auto evenCount = [&](int src, int dst) { return w ? 2 * words(src, dst) : words(src, dst); };
    for (int r = 0; r < p; ++r) {
        scounts[r].resize(p), sdispls[r].resize(p), rcounts[r].resize(p), rdispls[r].resize(p);
        int sat = 0, rat = 0;
        for (int d = p - 1; d >= 0; --d) {
            const size_t sw = evenCount(r, d), rw = evenCount(d, r);
            sdispls[r][d] = sat;
            rdispls[r][d] = rat;
            scounts[r][d] = static_cast<int>(isPair(d) ? sw / 2 : sw);
            rcounts[r][d] = static_cast<int>(rw);
            sat += static_cast<int>(sw) + 1;
            rat += static_cast<int>(rw) + 1;
            stypes[r].push_back(nullptr), rtypes[r].push_back(nullptr);
        }
        for (int d = 0; d < p; ++d) {
            stypes[r][d] = isPair(d) ? &pairType() : &int64Type();
            rtypes[r][d] = &int64Type();
        }
        send[r].assign(sat, kUntouched);
        for (int d = 0; d < p; ++d)
            for (size_t i = 0; i < evenCount(r, d); ++i) send[r][sdispls[r][d] + i] = value(r, d, i);
        rwords[r] = rat;
        recv[r].assign(rat, kUntouched);
        if (inPlace) {
            // In place uses the receive layout for both directions.
            for (int d = 0; d < p; ++d)
                for (size_t i = 0; i < evenCount(d, r); ++i) recv[r][rdispls[r][d] + i] = value(r, d, i);
        }
        CollCall c = baseCall(w ? HIERAGG_ALLTOALLW : HIERAGG_ALLTOALLV, r, p, nullptr);
        c.args.sbuf = send[r].data();
        c.args.rbuf = recv[r].data();
        c.args.stype = c.args.rtype = &int64Type();
        c.args.scounts = scounts[r].data();
        c.args.rcounts = rcounts[r].data();
        if (w) {
            // alltoallw displacements are in bytes.
            for (int d = 0; d < p; ++d) sdispls[r][d] *= 8, rdispls[r][d] *= 8;
            c.args.stypes = stypes[r].data();
            c.args.rtypes = rtypes[r].data();
        }
        c.args.sdispls = sdispls[r].data();
        c.args.rdispls = rdispls[r].data();
        if (inPlace) c.args.in_place = 1, c.args.sbuf = nullptr;
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error << " p=" << p;
    for (int r = 0; r < p; ++r) {
        std::vector<int64_t> expect(rwords[r], kUntouched);
        const int scale = w ? 8 : 1;
        for (int src = 0; src < p; ++src)
            for (size_t i = 0; i < evenCount(src, r); ++i) expect[rdispls[r][src] / scale + i] = value(src, r, i);
        ASSERT_EQ(recv[r], expect) << "rank " << r << " p=" << p << (w ? " w" : " v");
    }
}

}  // namespace

TEST(AlltoallSim, EverySizeHierarchyAndAlgorithm) {
    for (int p = 1; p <= 9; ++p)
        for (const auto& nh : dataMovementHierarchies(p))
            for (int algo : {0, 1, 2}) checkAlltoall(p, nh, 3, false, false, algo);
}

TEST(AlltoallSim, InPlace) {
    for (int p = 1; p <= 9; ++p)
        for (const auto& nh : dataMovementHierarchies(p))
            for (int algo : {1, 2}) checkAlltoall(p, nh, 2, true, false, algo);
}

TEST(AlltoallSim, SendTypeDiffersAndZeroCount) {
    for (int p : {2, 5, 7, 9})
        for (const auto& nh : dataMovementHierarchies(p))
            for (int algo : {1, 2}) {
                checkAlltoall(p, nh, 4, false, true, algo);
                checkAlltoall(p, nh, 0, false, false, algo);
            }
}

TEST(AlltoallSim, HierarchicalSendsOneMessagePerPairOfGroups) {
    for (int block : {2, 3, 4}) {
        const int p = 9;
        hier::Hierarchy h = virtualNodes(p, block);
        sim::SimNetwork net(p);
        std::vector<std::vector<int64_t>> send(p, std::vector<int64_t>(p)), recv(p, std::vector<int64_t>(p));
        std::vector<CollCall> calls;
        for (int r = 0; r < p; ++r) {
            CollCall c = baseCall(HIERAGG_ALLTOALL, r, p, &h);
            c.args.sbuf = send[r].data();
            c.args.rbuf = recv[r].data();
            c.args.stype = c.args.rtype = &int64Type();
            c.args.scount = c.args.rcount = 1;
            calls.push_back(c);
        }
        auto res = sim::runOne(net, calls, recipeBuilder());
        ASSERT_TRUE(res.ok) << res.error;
        EXPECT_EQ(res.algorithms[0], "hier-leaders");
        const uint64_t groups = (p + block - 1) / block;
        EXPECT_EQ(crossingMessages(net, p, [&](int r) { return r / block; }), groups * (groups - 1));
    }
}

TEST(AlltoallSim, LargeBlocksPickPairwise) {
    const int p = 4;
    hier::Hierarchy h = virtualNodes(p, 2);
    CollCall c = baseCall(HIERAGG_ALLTOALL, 0, p, &h);
    c.rtype = c.stype = {1024, 0, 1024, 0, 1024};
    c.args.rcount = c.args.scount = 1;
    EXPECT_EQ(recipes::buildSchedule(c).algorithm, "flat-pairwise");
}

TEST(AlltoallvSim, UnevenCountsReversedDisplacements) {
    for (int p = 1; p <= 9; ++p) checkAlltoallv(p, false, false);
}

TEST(AlltoallvSim, InPlaceSymmetricCounts) {
    for (int p = 1; p <= 9; ++p) checkAlltoallv(p, true, false);
}

TEST(AlltoallwSim, PerPeerTypesByteDisplacements) {
    for (int p = 1; p <= 9; ++p) checkAlltoallv(p, false, true);
}

TEST(AlltoallwSim, InPlace) {
    for (int p = 1; p <= 9; ++p) checkAlltoallv(p, true, true);
}

#include "InterSim.hpp"

TEST(AlltoallSim, IntercommunicatorAlltoallVariants) {
    // Block from global rank s to remote rank j of the other group: value(s, j, i).
    for (hieragg_coll_kind kind : {HIERAGG_ALLTOALL, HIERAGG_ALLTOALLV, HIERAGG_ALLTOALLW})
        for (int na : {1, 2, 3})
            for (int nb : {1, 3}) {
                const int n = na + nb;
                const bool v = kind != HIERAGG_ALLTOALL;
                auto words = [&](int sg, int dg) { return v ? static_cast<size_t>((sg + dg) % 3) : size_t(2); };
                auto globalOf = [&](bool inA, int r) { return inA ? r : na + r; };
                sim::SimNetwork net(n);
                std::vector<CollCall> calls(n);
                std::vector<std::vector<int64_t>> send(n), recv(n);
                std::vector<std::vector<int>> sc(n), sd(n), rc(n), rd(n);
                std::vector<std::vector<void*>> st(n), rt(n);
                for (int g = 0; g < n; ++g) {
                    const bool inA = g < na;
                    const int m = inA ? nb : na;
                    int sat = 0, rat = 0;
                    sc[g].resize(m), sd[g].resize(m), rc[g].resize(m), rd[g].resize(m);
                    for (int j = m - 1; j >= 0; --j) {
                        const int peer = globalOf(!inA, j);
                        sc[g][j] = static_cast<int>(words(g, peer));
                        rc[g][j] = static_cast<int>(words(peer, g));
                        sd[g][j] = v ? sat : 2 * j;
                        rd[g][j] = v ? rat : 2 * j;
                        sat += v ? sc[g][j] + 1 : 2;
                        rat += v ? rc[g][j] + 1 : 2;
                    }
                    send[g].assign(sat, kUntouched);
                    for (int j = 0; j < m; ++j)
                        for (int i = 0; i < sc[g][j]; ++i) send[g][sd[g][j] + i] = value(g, globalOf(!inA, j), i);
                    recv[g].assign(rat, kUntouched);
                    CollCall& c = calls[g];
                    c.args.kind = kind;
                    c.inter = true;
                    c.rank = inA ? g : g - na;
                    c.size = inA ? na : nb;
                    c.remoteSize = m;
                    c.args.stype = c.args.rtype = &int64Type();
                    c.args.sbuf = send[g].data();
                    c.args.rbuf = recv[g].data();
                    c.args.scount = c.args.rcount = 2;
                    st[g].assign(m, &int64Type());
                    rt[g].assign(m, &int64Type());
                    if (kind == HIERAGG_ALLTOALLW)
                        for (int j = 0; j < m; ++j) sd[g][j] *= 8, rd[g][j] *= 8;
                    c.args.scounts = sc[g].data();
                    c.args.sdispls = sd[g].data();
                    c.args.rcounts = rc[g].data();
                    c.args.rdispls = rd[g].data();
                    c.args.stypes = st[g].data();
                    c.args.rtypes = rt[g].data();
                }
                ASSERT_EQ(runInter(net, na, calls), "");
                for (int g = 0; g < n; ++g) {
                    const bool inA = g < na;
                    const int m = inA ? nb : na;
                    const int scale = kind == HIERAGG_ALLTOALLW ? 8 : 1;
                    std::vector<int64_t> expect(recv[g].size(), kUntouched);
                    for (int j = 0; j < m; ++j)
                        for (int i = 0; i < rc[g][j]; ++i)
                            expect[rd[g][j] / scale + i] = value(globalOf(!inA, j), g, i);
                    ASSERT_EQ(recv[g], expect) << "rank " << g << " kind " << kind << " na=" << na << " nb=" << nb;
                }
            }
}
