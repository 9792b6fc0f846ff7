#include "hieragg/aggtree/Fabric.hpp"
#include "hieragg/aggtree/FabricGenerators.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace hieragg::aggtree;

namespace {

long long ipow(long long b, int e) {
    long long r = 1;
    while (e-- > 0) r *= b;
    return r;
}

// Closed form for a k-ary n-tree: NICs i and j (leaf words i/k, j/k) are 2 links apart
// under one leaf, otherwise 2·(d+2) where d is the highest base-k digit where the
// leaf words differ (they meet at level d+1).
int karyHops(int k, int i, int j) {
    if (i == j) return 0;
    int wa = i / k, wb = j / k;
    if (wa == wb) return 2;
    int d = -1;
    for (int digit = 0; wa || wb; ++digit, wa /= k, wb /= k)
        if (wa % k != wb % k) d = digit;
    return 2 * (d + 2);
}

int switchNeighbours(const Fabric& f, int v) {
    int n = 0;
    for (auto [u, id] : f.adjacent(v)) {
        (void)id;
        n += f.isSwitch(u);
    }
    return n;
}

// Checks that `path` is a walk of links from a to b.
bool isWalk(const Fabric& f, const std::vector<int>& path, int a, int b) {
    int v = a;
    for (int id : path) {
        const auto& l = f.link(id);
        if (l.a == v) v = l.b;
        else if (l.b == v) v = l.a;
        else return false;
    }
    return v == b;
}

}  // namespace

TEST(Fabric, BuildsGraphAndRejectsBadLinks) {
    Fabric f;
    int s = f.addSwitch("s", 0);
    int a = f.addNic("a", 0);
    int b = f.addNic("b", 1);
    EXPECT_EQ(f.connect(a, s), 0);
    EXPECT_EQ(f.connect(s, b), 1);
    EXPECT_THROW(f.connect(a, b), std::invalid_argument);
    EXPECT_THROW(f.connect(s, s), std::invalid_argument);
    EXPECT_THROW(f.connect(s, 99), std::invalid_argument);
    EXPECT_EQ(f.linkBetween(b, s), 1);
    EXPECT_EQ(f.linkBetween(a, b), -1);
    EXPECT_EQ(f.findByName("b"), b);
    EXPECT_EQ(f.hopsFrom(a)[b], 2);
    EXPECT_EQ(f.route(a, b), (std::vector<int>{0, 1}));
}

TEST(Fabric, NicsDoNotForward) {
    // s0 - nic - s1: the NIC must not be used as a transit hop.
    Fabric f;
    int s0 = f.addSwitch("s0"), s1 = f.addSwitch("s1");
    int nic = f.addNic("nic", 0);
    f.connect(s0, nic);
    f.connect(nic, s1);
    EXPECT_EQ(f.hopsFrom(s0)[s1], Fabric::kUnreachable);
    EXPECT_EQ(f.hopsFrom(nic)[s1], 1);
    EXPECT_TRUE(f.route(s0, s1).empty());
}

TEST(Fabric, SameNodeTrafficCrossesNoLink) {
    Fabric f = twoLevelFatTree(2, 4, 2, /*nicsPerNode=*/2);
    const auto& nics = f.nics();
    EXPECT_EQ(f.nodeOf(nics[0]), f.nodeOf(nics[1]));
    EXPECT_NE(f.nodeOf(nics[1]), f.nodeOf(nics[2]));
    EXPECT_TRUE(f.route(nics[0], nics[1]).empty());
    EXPECT_EQ(f.route(nics[1], nics[2]).size(), 2u);
    EXPECT_EQ(f.route(nics[0], nics[4]).size(), 4u);
}

TEST(FabricGenerators, KAryNTreeCountsAndHopsMatchClosedForm) {
    for (auto [k, n] : {std::pair{2, 1}, {2, 3}, {3, 2}, {4, 3}}) {
        Fabric f = kAryNTree(k, n);
        ASSERT_EQ(static_cast<long long>(f.nics().size()), ipow(k, n)) << k << "," << n;
        ASSERT_EQ(static_cast<long long>(f.switches().size()), n * ipow(k, n - 1));
        ASSERT_EQ(static_cast<long long>(f.linkCount()), ipow(k, n) * n);  // k^n per level boundary
        for (int s : f.switches()) {
            int lvl = f.level(s);
            int up = 0, down = 0;
            for (auto [u, id] : f.adjacent(s)) {
                (void)id;
                if (f.isSwitch(u) && f.level(u) > lvl) ++up;
                else ++down;
            }
            EXPECT_EQ(down, k);
            EXPECT_EQ(up, lvl + 1 < n ? k : 0);
        }
        for (int i = 0; i < static_cast<int>(f.nics().size()); ++i) {
            auto hops = f.hopsFrom(f.nics()[i]);
            for (int j = 0; j < static_cast<int>(f.nics().size()); ++j) {
                ASSERT_EQ(hops[f.nics()[j]], karyHops(k, i, j)) << i << "->" << j;
                if ((i * 7 + j) % 5 == 0) {
                    auto path = f.route(f.nics()[i], f.nics()[j]);
                    EXPECT_EQ(static_cast<int>(path.size()), karyHops(k, i, j));
                    EXPECT_TRUE(isWalk(f, path, f.nics()[i], f.nics()[j]));
                }
            }
        }
    }
}

TEST(FabricGenerators, PrunedFatTreeHasOneUplinkPerLeaf) {
    Fabric f = prunedTwoLevelFatTree(32, 16, 2);
    EXPECT_EQ(f.nics().size(), 512u);
    EXPECT_EQ(f.switches().size(), 33u);
    for (int s : f.switches())
        if (f.level(s) == 0) {
            EXPECT_EQ(switchNeighbours(f, s), 1);
        }
    EXPECT_EQ(f.nodeOf(f.nics()[511]), 255);
    // Rank r on leaf r/16: its first hop is leaf r/16.
    for (int r = 0; r < 512; r += 37) {
        int nic = f.nics()[r];
        EXPECT_EQ(f.name(f.adjacent(nic)[0].first), "leaf" + std::to_string(r / 16));
    }
}

TEST(FabricGenerators, SupernodeMatchesThePaper) {
    Fabric one = supernodeFabric({});
    EXPECT_EQ(one.nics().size(), 512u);
    EXPECT_EQ(one.switches().size(), 48u);
    EXPECT_EQ(one.nodeOf(one.nics().back()), 255);
    EXPECT_EQ(one.linkCount(), 512 + 32 * 16);
    auto hops = one.hopsFrom(one.nics()[0]);
    EXPECT_EQ(hops[one.nics()[1]], 2);
    EXPECT_EQ(hops[one.nics()[15]], 2);
    EXPECT_EQ(hops[one.nics()[16]], 4);
    EXPECT_EQ(hops[one.nics()[511]], 4);

    SupernodeFabricSpec spec;
    spec.supernodes = 3;
    Fabric three = supernodeFabric(spec);
    EXPECT_EQ(three.nics().size(), 3u * 512);
    EXPECT_EQ(three.switches().size(), 3u * 48 + 16 * 8);
    for (int s : three.switches()) {
        EXPECT_LE(static_cast<int>(three.adjacent(s).size()), three.level(s) < 2 ? 40 : 3);
    }
    auto h3 = three.hopsFrom(three.nics()[0]);
    EXPECT_EQ(h3[three.nics()[511]], 4);
    EXPECT_EQ(h3[three.nics()[512]], 6);
    EXPECT_EQ(h3[three.nics()[3 * 512 - 1]], 6);

    spec.spinesPerSupernode = 30;  // 16 NIC + 30 uplink ports > 40
    EXPECT_THROW(supernodeFabric(spec), std::invalid_argument);
}

TEST(FabricGenerators, FromSlurmTopology) {
    std::istringstream in(
        "SwitchName=s0 Nodes=a[0-1]\n"
        "SwitchName=s1 Nodes=b[0-2]\n"
        "SwitchName=top Switches=s[0-1]\n");
    auto topo = parseSlurmTopology(in, "t.conf");
    Fabric f = fabricFromSlurm(topo, 2);
    EXPECT_EQ(f.switches().size(), 3u);
    EXPECT_EQ(f.nics().size(), 10u);
    EXPECT_EQ(f.level(f.findByName("top")), 1);
    EXPECT_EQ(f.level(f.findByName("s1")), 0);
    int a0p1 = f.findByName("a0.p1"), b2p0 = f.findByName("b2.p0");
    ASSERT_GE(a0p1, 0);
    ASSERT_GE(b2p0, 0);
    EXPECT_EQ(f.nodeOf(a0p1), 0);
    EXPECT_EQ(f.nodeOf(b2p0), 4);
    EXPECT_EQ(f.hopsFrom(a0p1)[b2p0], 4);
    EXPECT_EQ(f.hopsFrom(a0p1)[f.findByName("a1.p0")], 2);
}

TEST(ProcessPlacement, BlockPlacementAndMultiplicity) {
    Fabric f = twoLevelFatTree(2, 4, 1);
    auto p = placeBlock(f, 6, 2);
    EXPECT_EQ(p.nicOfRank, (std::vector<int>{f.nics()[0], f.nics()[0], f.nics()[1], f.nics()[1], f.nics()[2], f.nics()[2]}));
    auto m = p.multiplicity(f);
    EXPECT_EQ(m[f.nics()[1]], 2);
    EXPECT_EQ(m[f.nics()[3]], 0);
    EXPECT_EQ(p.distinctNics().size(), 3u);
    EXPECT_NO_THROW(p.validate(f));
    EXPECT_THROW(placeBlock(f, 9, 1), std::invalid_argument);
    ProcessPlacement bad{{f.switches()[0]}};
    EXPECT_THROW(bad.validate(f), std::invalid_argument);
}
