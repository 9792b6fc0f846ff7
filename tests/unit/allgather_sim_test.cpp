// Allgather and allgatherv on the simulator: every size 1..9, every hierarchy,
// in place, zero counts (also on some ranks for allgatherv), send type != recv
// type, displacements out of rank order with gaps that must stay untouched.
#include <gtest/gtest.h>

#include "DataMovementFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int64_t kUntouched = -7;
int64_t value(int src, size_t i) { return 1000 * src + static_cast<int64_t>(i) + 1; }

// words(r) int64 words from rank r; displs in reverse rank order with a gap word.
void checkAllgatherv(int p, const NamedHierarchy& nh, bool vector, bool inPlace, bool pairSend, size_t base,
                     int algorithm = 0) {
    auto words = [&](int r) -> size_t {
        if (!vector) return base;
        return pairSend ? 2 * ((r + 1) % 3) : static_cast<size_t>((r * 3) % 5);
    };
    std::vector<int> counts(p), displs(p);
    int at = 0;
    for (int r = p - 1; r >= 0; --r) {
        counts[r] = static_cast<int>(words(r));
        displs[r] = vector ? at : r * static_cast<int>(base);
        at += vector ? counts[r] + 1 : 0;
    }
    if (!vector) at = p * static_cast<int>(base);
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p), recv(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        for (size_t i = 0; i < words(r); ++i) send[r].push_back(value(r, i));
        recv[r].assign(at, kUntouched);
        CollCall c = baseCall(vector ? HIERAGG_ALLGATHERV : HIERAGG_ALLGATHER, r, p, nh.h.get());
        c.algorithm = algorithm;
        c.args.sbuf = send[r].data();
        c.args.stype = pairSend ? &pairType() : &int64Type();
        c.args.scount = pairSend ? words(r) / 2 : words(r);
        c.args.rbuf = recv[r].data();
        c.args.rtype = &int64Type();
        c.args.rcount = base;
        c.args.rcounts = counts.data();
        c.args.rdispls = displs.data();
        if (inPlace) {
            c.args.in_place = 1;
            c.args.sbuf = nullptr;
            c.args.stype = nullptr;
            for (size_t i = 0; i < words(r); ++i) recv[r][displs[r] + i] = value(r, i);
        }
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error << " p=" << p << " h=" << nh.name;
    std::vector<int64_t> expect(at, kUntouched);
    for (int src = 0; src < p; ++src)
        for (size_t i = 0; i < words(src); ++i) expect[displs[src] + i] = value(src, i);
    for (int r = 0; r < p; ++r) ASSERT_EQ(recv[r], expect) << "rank " << r << " p=" << p << " h=" << nh.name;
}

}  // namespace

TEST(AllgatherSim, EverySizeAndHierarchy) {
    for (int p = 1; p <= 9; ++p)
        for (const auto& nh : dataMovementHierarchies(p)) checkAllgatherv(p, nh, false, false, false, 3);
}

TEST(AllgatherSim, InPlace) {
    for (int p = 1; p <= 9; ++p)
        for (const auto& nh : dataMovementHierarchies(p)) checkAllgatherv(p, nh, false, true, false, 2);
}

TEST(AllgatherSim, SendTypeDiffersAndZeroCount) {
    for (int p : {2, 5, 9})
        for (const auto& nh : dataMovementHierarchies(p)) {
            checkAllgatherv(p, nh, false, false, true, 4);
            checkAllgatherv(p, nh, false, false, false, 0);
        }
}

TEST(AllgatherSim, RingOverrideAndSmallSegments) {
    auto h = std::make_shared<hier::Hierarchy>(virtualNodes(7, 2));
    checkAllgatherv(7, {"virtual2-ring", h}, false, false, false, 3, 1);
}

TEST(AllgatherSim, OnlyLeadersCrossGroups) {
    // 3 groups of 3: gather to 3 leaders, a ring of 3 leaders (2 steps each), no other crossing
    // (the staged `hierarchical` row; auto takes the multi-leader exchange on equal groups).
    const int p = 9, block = 3;
    hier::Hierarchy h = virtualNodes(p, block);
    sim::SimNetwork net(p);
    std::vector<std::vector<int64_t>> send(p, std::vector<int64_t>(2, 5)), recv(p, std::vector<int64_t>(2 * p));
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        CollCall c = baseCall(HIERAGG_ALLGATHER, r, p, &h);
        c.algorithm = hier::algorithmValue(*hier::algorithmByName(HIERAGG_ALLGATHER, "hierarchical"));
        c.args.sbuf = send[r].data();
        c.args.rbuf = recv[r].data();
        c.args.stype = c.args.rtype = &int64Type();
        c.args.scount = c.args.rcount = 2;
        calls.push_back(c);
    }
    ASSERT_TRUE(sim::runOne(net, calls, recipeBuilder()).ok);
    EXPECT_EQ(crossingMessages(net, p, [&](int r) { return r / block; }), 6u);
}

TEST(AllgathervSim, UnevenCountsEveryHierarchy) {
    for (int p = 1; p <= 9; ++p)
        for (const auto& nh : dataMovementHierarchies(p)) checkAllgatherv(p, nh, true, false, false, 0);
}

TEST(AllgathervSim, InPlaceAndDifferentTypes) {
    for (int p : {1, 4, 7, 8})
        for (const auto& nh : dataMovementHierarchies(p)) {
            checkAllgatherv(p, nh, true, true, false, 0);
            checkAllgatherv(p, nh, true, false, true, 0);
        }
}

#include "InterSim.hpp"

TEST(AllgatherSim, IntercommunicatorAllgatherAndAllgatherv) {
    // Every rank of each group receives the blocks of every rank of the other group.
    for (bool vector : {false, true})
        for (int na : {1, 2, 3})
            for (int nb : {1, 4}) {
                const int n = na + nb;
                sim::SimNetwork net(n);
                std::vector<CollCall> calls(n);
                auto words = [&](int g) { return vector ? static_cast<size_t>(g % 3) : size_t(2); };
                std::vector<std::vector<int64_t>> send(n), recv(n);
                std::vector<std::vector<int>> counts(2), displs(2);  // [group] describing the other group
                std::vector<int> ats(2, 0);
                for (int grp = 0; grp < 2; ++grp) {
                    const int base = grp == 0 ? na : 0, m = grp == 0 ? nb : na;
                    counts[grp].resize(m), displs[grp].resize(m);
                    for (int r = m - 1; r >= 0; --r) {
                        counts[grp][r] = static_cast<int>(words(base + r));
                        displs[grp][r] = vector ? ats[grp] : 2 * r;
                        ats[grp] += vector ? counts[grp][r] + 1 : 2;
                    }
                }
                for (int g = 0; g < n; ++g) {
                    const bool inA = g < na;
                    const int grp = inA ? 0 : 1;
                    for (size_t i = 0; i < words(g); ++i) send[g].push_back(value(g, i));
                    recv[g].assign(ats[grp], kUntouched);
                    CollCall& c = calls[g];
                    c.args.kind = vector ? HIERAGG_ALLGATHERV : HIERAGG_ALLGATHER;
                    c.inter = true;
                    c.rank = inA ? g : g - na;
                    c.size = inA ? na : nb;
                    c.remoteSize = inA ? nb : na;
                    c.args.stype = c.args.rtype = &int64Type();
                    c.args.sbuf = send[g].data();
                    c.args.scount = words(g);
                    c.args.rbuf = recv[g].data();
                    c.args.rcount = 2;
                    c.args.rcounts = counts[grp].data();
                    c.args.rdispls = displs[grp].data();
                }
                ASSERT_EQ(runInter(net, na, calls), "");
                for (int g = 0; g < n; ++g) {
                    const int grp = g < na ? 0 : 1, base = grp == 0 ? na : 0, m = grp == 0 ? nb : na;
                    std::vector<int64_t> expect(ats[grp], kUntouched);
                    for (int r = 0; r < m; ++r)
                        for (size_t i = 0; i < words(base + r); ++i) expect[displs[grp][r] + i] = value(base + r, i);
                    ASSERT_EQ(recv[g], expect) << "rank " << g << " na=" << na << " nb=" << nb;
                }
            }
}
