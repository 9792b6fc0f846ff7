// OwnedCallArgs (src/runtime/OwnedCallArgs.hpp): a copy holds every array the call reads
// on this rank, by value, whatever the caller does with its own afterwards; arrays that
// are not significant there are never read (their pointers become null).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "../../src/runtime/OwnedCallArgs.hpp"

using namespace hieragg;

namespace {

CallSide sideOf(int rank, int size) {
    CallSide s;
    s.rank = rank;
    s.size = size;
    return s;
}

// The caller's arrays, rewritten after the copy was taken.
void scribble(std::vector<int>& v) { std::fill(v.begin(), v.end(), -99); }

TEST(OwnedCallArgs, CopiesAllgathervVectorsByValue) {
    std::vector<int> counts{3, 1, 4, 1}, displs{0, 3, 4, 8};
    hieragg_coll_args a{};
    a.kind = HIERAGG_ALLGATHERV;
    a.rcounts = counts.data();
    a.rdispls = displs.data();
    a.scount = 4;
    const OwnedCallArgs o = OwnedCallArgs::copied(a, sideOf(2, 4));
    scribble(counts);
    scribble(displs);
    ASSERT_NE(o.args().rcounts, counts.data());
    EXPECT_EQ(std::vector<int>(o.args().rcounts, o.args().rcounts + 4), (std::vector<int>{3, 1, 4, 1}));
    EXPECT_EQ(std::vector<int>(o.args().rdispls, o.args().rdispls + 4), (std::vector<int>{0, 3, 4, 8}));
    EXPECT_EQ(o.args().scount, 4u);
    EXPECT_EQ(o.args().scounts, nullptr);
}

TEST(OwnedCallArgs, BorrowedPointsAtTheCallersArrays) {
    std::vector<int> counts{1, 2};
    hieragg_coll_args a{};
    a.kind = HIERAGG_REDUCE_SCATTER;
    a.rcounts = counts.data();
    const OwnedCallArgs o = OwnedCallArgs::held(a, sideOf(0, 2), ArgsLifetime::UntilCompletion);
    EXPECT_EQ(o.args().rcounts, counts.data());
    EXPECT_EQ(o.heldBytes(), 0u);
}

// Gatherv's receive vectors count at the root only; elsewhere they may be garbage.
TEST(OwnedCallArgs, RootedVectorsOnlyAtTheRoot) {
    std::vector<int> counts{2, 2, 2}, displs{0, 2, 4};
    hieragg_coll_args a{};
    a.kind = HIERAGG_GATHERV;
    a.root = 1;
    a.rcounts = counts.data();
    a.rdispls = displs.data();
    int sendType = 0, recvType = 0;
    a.stype = &sendType;
    a.rtype = &recvType;  // Open MPI does not retain it away from the root
    const OwnedCallArgs member = OwnedCallArgs::copied(a, sideOf(0, 3));
    EXPECT_EQ(member.args().rcounts, nullptr);
    EXPECT_EQ(member.args().rdispls, nullptr);
    EXPECT_EQ(member.args().rtype, nullptr);
    EXPECT_EQ(member.args().stype, &sendType);
    const OwnedCallArgs root = OwnedCallArgs::copied(a, sideOf(1, 3));
    EXPECT_EQ(root.args().rtype, &recvType);
    scribble(counts);
    ASSERT_NE(root.args().rcounts, nullptr);
    EXPECT_EQ(root.args().rcounts[2], 2);
    // An intercommunicator's root group: MPI_ROOT holds the remote group's vectors.
    std::vector<int> remote{5, 6, 7, 8, 9};
    a.rcounts = a.rdispls = remote.data();
    a.root = HIERAGG_ROOT;
    CallSide inter = sideOf(0, 2);
    inter.inter = true;
    inter.remoteSize = 5;
    const OwnedCallArgs interRoot = OwnedCallArgs::copied(a, inter);
    scribble(remote);
    EXPECT_EQ(interRoot.args().rcounts[4], 9);
}

// MPI_IN_PLACE: an alltoallw's send counts, displacements and types are ignored.
TEST(OwnedCallArgs, InPlaceAlltoallwKeepsTheReceiveSideOnly) {
    std::vector<int> counts{1, 1}, displs{0, 4};
    int dummyType = 0;
    std::vector<void*> types{&dummyType, &dummyType};
    hieragg_coll_args a{};
    a.kind = HIERAGG_ALLTOALLW;
    a.in_place = 1;
    a.scounts = a.sdispls = reinterpret_cast<const int*>(0x10);  // garbage: must not be read
    a.stypes = reinterpret_cast<void* const*>(0x10);
    a.rcounts = counts.data();
    a.rdispls = displs.data();
    a.rtypes = types.data();
    const OwnedCallArgs o = OwnedCallArgs::copied(a, sideOf(0, 2));
    types[1] = nullptr;
    EXPECT_EQ(o.args().scounts, nullptr);
    EXPECT_EQ(o.args().stypes, nullptr);
    ASSERT_NE(o.args().rtypes, nullptr);
    EXPECT_EQ(o.args().rtypes[1], &dummyType);
    EXPECT_EQ(o.args().rdispls[1], 4);
}

// Neighbor_alltoallw: out-degree send arrays, in-degree receive arrays, both neighbor lists.
TEST(OwnedCallArgs, NeighborAlltoallwByDegree) {
    std::vector<int> sources{4, 5, 6}, destinations{7}, rcounts{1, 2, 3}, scounts{9};
    std::vector<ptrdiff_t> rbytes{0, 8, 16}, sbytes{32};
    std::vector<void*> rtypes{nullptr, nullptr, &rbytes}, stypes{&sbytes};
    hieragg_coll_args a{};
    a.kind = HIERAGG_NEIGHBOR_ALLTOALLW;
    a.indegree = 3;
    a.outdegree = 1;
    a.sources = sources.data();
    a.destinations = destinations.data();
    a.rcounts = rcounts.data();
    a.scounts = scounts.data();
    a.rdispls_bytes = rbytes.data();
    a.sdispls_bytes = sbytes.data();
    a.rtypes = rtypes.data();
    a.stypes = stypes.data();
    OwnedCallArgs o = OwnedCallArgs::copied(a, sideOf(0, 8));
    // Moving keeps the copies where they are.
    const OwnedCallArgs moved = std::move(o);
    scribble(sources);
    scribble(rcounts);
    rbytes.assign(3, -1);
    EXPECT_EQ(moved.args().sources[2], 6);
    EXPECT_EQ(moved.args().destinations[0], 7);
    EXPECT_EQ(moved.args().rcounts[2], 3);
    EXPECT_EQ(moved.args().scounts[0], 9);
    EXPECT_EQ(moved.args().rdispls_bytes[2], 16);
    EXPECT_EQ(moved.args().sdispls_bytes[0], 32);
    EXPECT_EQ(moved.args().rtypes[2], &rbytes);
    EXPECT_EQ(moved.args().stypes[0], &sbytes);
}

// A persistent request's storage is refilled in place: no growth for a same-size call.
TEST(OwnedCallArgs, AssignReusesItsStorage) {
    std::vector<int> counts(64, 1);
    hieragg_coll_args a{};
    a.kind = HIERAGG_REDUCE_SCATTER;
    a.rcounts = counts.data();
    OwnedCallArgs o;
    o.assign(a, sideOf(0, 64));
    const int* first = o.args().rcounts;
    const size_t bytes = o.heldBytes();
    counts.assign(64, 2);
    o.assign(a, sideOf(0, 64));
    EXPECT_EQ(o.args().rcounts, first);
    EXPECT_EQ(o.heldBytes(), bytes);
    EXPECT_EQ(o.args().rcounts[63], 2);
}

}  // namespace
