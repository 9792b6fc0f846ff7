#include "hieragg/aggtree/FabricGenerators.hpp"
#include "hieragg/aggtree/TrafficModel.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace hieragg::aggtree;

namespace {

// k-ary tree over P ranks, written here so the expectations do not depend on the builder.
Tree karyTree(int P, int k) {
    Tree t;
    t.root = 0;
    t.parent.assign(P, Tree::kNone);
    for (int r = 1; r < P; ++r) t.parent[r] = (r - 1) / k;
    t.rebuildChildren();
    return t;
}

int uplinkOf(const Fabric& f, int leaf) {
    for (auto [n, id] : f.adjacent(leaf))
        if (f.isSwitch(n)) return id;
    return -1;
}

}  // namespace

TEST(TrafficModel, KaryTreeOnPrunedFatTreeMatchesThePapersCount) {
    // Fig. 16 setup: 512 ranks, 2 per node, 16 per leaf; 32-ary tree. The paper reports
    // 496 packets on the link between the root's leaf and the rest of the fabric.
    Fabric f = prunedTwoLevelFatTree(32, 16, 2);
    auto placement = placeBlock(f, 512);
    Tree t = karyTree(512, 32);
    auto r = typeOneTraffic(f, t, placement);
    int leaf0 = f.findByName("leaf0");
    int up = uplinkOf(f, leaf0);
    int core = f.findByName("core");
    EXPECT_EQ(r.packets(f, up, core), 496);  // into the root's leaf
    // Closed form per edge: same node 0 links, same leaf 2, otherwise 4 (leaf-core-leaf).
    long long expectTotal = 0, expectOut = 0;
    for (int c = 1; c < 512; ++c) {
        int p = (c - 1) / 32;
        if (c / 2 == p / 2) continue;
        expectTotal += c / 16 == p / 16 ? 2 : 4;
        if (c / 16 == 0 && p / 16 != 0) ++expectOut;
    }
    EXPECT_EQ(r.totalLinkPackets, expectTotal);
    EXPECT_EQ(r.packets(f, up, leaf0), expectOut);
    EXPECT_EQ(r.entriesUsed, 0);
    EXPECT_EQ(r.heightEdges, 2);
    EXPECT_EQ(r.maxChildren, 32);
    // Deepest path: rank c (other leaf) -> p in 2..15 (4 links) -> 0 (same leaf, 2 links).
    EXPECT_EQ(r.radiusLinks, 6);
}

TEST(TrafficModel, SameNicAndSameNodeCrossNoLink) {
    Fabric f = twoLevelFatTree(2, 4, 2, 2);
    ProcessPlacement p{{f.nics()[0], f.nics()[0], f.nics()[1], f.nics()[4]}};
    Tree t;
    t.root = 0;
    t.parent = {Tree::kNone, 0, 0, 0};
    t.rebuildChildren();
    auto r = typeOneTraffic(f, t, p);
    EXPECT_EQ(r.totalLinkPackets, 4);  // only rank 3: NIC - leaf1 - spine - leaf0 - NIC
    EXPECT_EQ(r.maxLinkPackets, 1);
    EXPECT_EQ(r.radiusLinks, 4);
    // Three children each costing one packet time; rank 3 arrives after 4 hops.
    TrafficTimeParameters params;
    double expect = std::max(2 * params.nic_packet_us, 4 * params.link_latency_us) + params.nic_packet_us;
    EXPECT_DOUBLE_EQ(r.predictedUs, expect);
    EXPECT_THROW(typeOneTraffic(f, karyTree(3, 2), p), std::invalid_argument);
}

TEST(TrafficModel, TypeTwoStarTimeAndEntries) {
    Fabric f = twoLevelFatTree(1, 3, 1);
    auto nics = f.nics();
    TypeTwoTree t = physicalTree(f, f.findByName("leaf0"), nics);
    TrafficTimeParameters params;
    auto r = typeTwoTraffic(f, t, {}, params);
    EXPECT_EQ(r.entriesUsed, 1);
    EXPECT_EQ(r.totalLinkPackets, 3);
    EXPECT_DOUBLE_EQ(r.predictedUs, params.link_latency_us + 3 * params.switch_packet_us);
    // Two processes on the first NIC: it combines them first, so its packet arrives last.
    std::vector<int> per(f.vertexCount(), 1);
    per[nics[0]] = 5;
    auto r2 = typeTwoTraffic(f, t, per, params);
    double late = 4 * params.nic_packet_us + params.link_latency_us;
    EXPECT_DOUBLE_EQ(r2.predictedUs,
                     std::max(params.link_latency_us + 2 * params.switch_packet_us, late) + params.switch_packet_us);
}

TEST(TrafficModel, PhysicalVersusRootOnlyTreeOnAKaryNTree) {
    const int k = 4;
    Fabric f = kAryNTree(k, 3);
    auto nics = f.nics();
    int root = rootCandidates(f, nics)[0];
    TypeTwoTree phys = physicalTree(f, root, nics);
    auto rp = typeTwoTraffic(f, phys);
    // One packet per tree edge, each edge a distinct link.
    EXPECT_EQ(rp.totalLinkPackets, phys.tree.size() - 1);
    EXPECT_EQ(rp.maxLinkPackets, 1);
    EXPECT_EQ(rp.entriesUsed, 1 + k + k * k);
    EXPECT_EQ(rp.radiusLinks, 3);

    auto reduced = minimumCostTree(f, phys, uniformDegreeLimit(f, 1000));
    ASSERT_TRUE(reduced.feasible);
    auto rr = typeTwoTraffic(f, reduced.tree);
    // Every NIC sends straight to the root: 3 links each; a leaf's uplink carries its k NICs,
    // a level-1 switch's uplink the k² NICs below it.
    EXPECT_EQ(rr.entriesUsed, 1);
    EXPECT_EQ(rr.totalLinkPackets, 3LL * k * k * k);
    EXPECT_EQ(rr.maxLinkPackets, k * k);
    int someLeaf = f.adjacent(nics[0])[0].first;
    long long intoSwitches = 0;
    for (auto [n, id] : f.adjacent(someLeaf))
        if (f.isSwitch(n)) intoSwitches += rr.packets(f, id, someLeaf);
    EXPECT_EQ(intoSwitches, k);
    EXPECT_EQ(rr.switchLoad[root], k * k * k);
}

// ---- Reproduce: figure 16 -----------------------------------------------------------------

#include "hieragg/aggtree/Reproduce.hpp"

#include <filesystem>
#include <fstream>
#include <unistd.h>

TEST(ReproduceFig16, KaryTreeCountsAndFiles) {
    auto rows = reproduceFig16({{"32-ary", karyTree(512, 32)}});
    ASSERT_EQ(rows.size(), 1u);
    const auto& r = rows[0];
    EXPECT_EQ(r.rootLeafIn, 496);  // the paper's number for link 0-1
    EXPECT_EQ(r.rootLeafOut, 0);
    EXPECT_EQ(r.maxUplink, 496);
    // Inter-leaf packets: edges whose endpoints are on different leaves (r / 16).
    long long crossing = 0;
    for (int c = 1; c < 512; ++c) crossing += c / 16 != (c - 1) / 32 / 16;
    EXPECT_EQ(r.interLeaf, crossing);
    ASSERT_EQ(r.upPerLeaf.size(), 32u);
    // Leaf 1 (ranks 16..31) sends exactly its ranks 16..31 up (parent 0 for 16..31 is (c-1)/32 = 0).
    EXPECT_EQ(r.upPerLeaf[1], 16);

    std::string dir = testing::TempDir() + "hieragg_fig16_" + std::to_string(getpid());
    writeFig16(rows, dir);
    std::ifstream csv(dir + "/fig16.csv");
    std::string header, line;
    std::getline(csv, header);
    std::getline(csv, line);
    EXPECT_EQ(line.rfind("32-ary,496,0,496,", 0), 0u) << line;
    EXPECT_TRUE(std::filesystem::file_size(dir + "/fig16.svg") > 200);
    EXPECT_TRUE(std::filesystem::exists(dir + "/fig16_links.csv"));
    std::filesystem::remove_all(dir);
    EXPECT_THROW(reproduceFig16({{"short", karyTree(100, 32)}}), std::invalid_argument);
}
