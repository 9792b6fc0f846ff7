// CommCounters (the MPI_T counters' storage): which level a send is counted at, from
// the decomposition alone, and the temporary-memory high water of overlapping tasks.
#include <gtest/gtest.h>

#include "../../src/runtime/CommCounters.hpp"
#include "hieragg/hier/Decomposition.hpp"

using namespace hieragg;

namespace {
hier::Hierarchy hierarchyOf(const char* split, int n) {
    std::vector<hier::RankIdentity> ids(n);
    for (int r = 0; r < n; ++r) ids[r].worldRank = r, ids[r].hostname = "h";
    hier::DecompositionResult d = hier::decomposeValue(split, ids);
    EXPECT_TRUE(d.warning.empty()) << d.warning;
    return d.hierarchy;
}
}  // namespace

TEST(CommCounters, SendsCountAtTheLevelThatSeparatesThePeers) {
    // virtual:2,virtual:4 on 8 ranks: pairs {4,5} inside quads {4..7}. Seen from rank 5:
    // 4 is in its subspace, 6 and 7 across leader level 1, 0..3 across leader level 2.
    const hier::Hierarchy h = hierarchyOf("virtual:2,virtual:4", 8);
    CommCounters c;
    c.setHierarchy(&h, 5);
    for (int peer = 0; peer < 8; ++peer)
        if (peer != 5) c.sent(peer, false, 100 + peer);
    hieragg_comm_counters k{};
    c.read(k);
    EXPECT_EQ(k.bytes[0], 104u);
    EXPECT_EQ(k.messages[0], 1u);
    EXPECT_EQ(k.bytes[1], 106u + 107u);
    EXPECT_EQ(k.messages[1], 2u);
    EXPECT_EQ(k.bytes[2], 100u + 101u + 102u + 103u);
    EXPECT_EQ(k.messages[2], 4u);
    EXPECT_EQ(k.bytes[3], 0u);
    EXPECT_EQ(k.subspaces, 4u);
}

TEST(CommCounters, WithoutADecompositionEverythingIsInsideTheSubspace) {
    const hier::Hierarchy trivial = hierarchyOf("virtual:8", 8);
    CommCounters c;
    c.setHierarchy(&trivial, 0);
    c.sent(7, false, 10);
    c.sent(3, true, 5);  // intercommunicator's local group
    hieragg_comm_counters k{};
    c.read(k);
    EXPECT_EQ(k.bytes[0], 15u);
    EXPECT_EQ(k.messages[0], 2u);
    EXPECT_EQ(k.bytes[1], 0u);
    EXPECT_EQ(k.subspaces, 1u);
}

TEST(CommCounters, TemporaryHighWaterFollowsOverlappingTasks) {
    CommCounters c;
    c.tempsHeld(100);
    c.tempsHeld(50);    // two tasks at once: 150
    c.tempsHeld(-100);
    c.tempsHeld(30);    // 80
    c.tempsHeld(-80);
    hieragg_comm_counters k{};
    c.read(k);
    EXPECT_EQ(k.temp_bytes_high_water, 150u);
}

TEST(CommCounters, OffloadedOperationsCountApartFromMessages) {
    const hier::Hierarchy h = hierarchyOf("virtual:2", 4);
    CommCounters c;
    c.setHierarchy(&h, 0);
    c.offloaded(16384);
    c.offloaded(0);  // a barrier
    c.sent(2, false, 8);
    hieragg_comm_counters k{};
    c.read(k);
    EXPECT_EQ(k.offloaded_operations, 2u);
    EXPECT_EQ(k.offloaded_bytes, 16384u);
    EXPECT_EQ(k.bytes[1], 8u);  // the PML's message only
    EXPECT_EQ(k.messages[1], 1u);
}

TEST(CommCounters, ServedCallsPerRegistryRow) {
    CommCounters c;
    c.served(0);
    c.served(0);
    c.served(3);
    EXPECT_EQ(c.algorithmCalls(0), 2u);
    EXPECT_EQ(c.algorithmCalls(3), 1u);
    EXPECT_EQ(c.algorithmCalls(1), 0u);
}
