// Neighborhood collectives on the simulator over the neighbour lists of 2-D
// Cartesian grids built here (periodic and not, dimensions of size 1 and 2 so
// a peer is both neighbours of a dimension), plus a distributed graph with
// doubled edges. Cartesian semantics: the block a rank sends in the negative
// direction of a dimension lands in the receiver's positive-direction slot.
#include <gtest/gtest.h>

#include "DataMovementFixture.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int64_t kUntouched = -7;
int64_t value(int src, int senderSlot, size_t i) { return 1000 * src + 10 * senderSlot + static_cast<int64_t>(i); }

struct Grid {
    int rows, cols;
    bool periodicRows, periodicCols;
    int size() const { return rows * cols; }
    // Neighbour list in the standard's order: dim 0 (-1, +1), dim 1 (-1, +1).
    std::vector<int> neighbors(int rank) const {
        const int x = rank / cols, y = rank % cols;
        auto at = [&](int xx, int yy) { return xx * cols + yy; };
        auto shift = [&](int v, int delta, int extent, bool periodic) {
            const int w = v + delta;
            if (w >= 0 && w < extent) return w;
            return periodic ? (w + extent) % extent : -1;
        };
        std::vector<int> out;
        for (int delta : {-1, 1}) {
            const int xx = shift(x, delta, rows, periodicRows);
            out.push_back(xx < 0 ? HIERAGG_PROC_NULL : at(xx, y));
        }
        for (int delta : {-1, 1}) {
            const int yy = shift(y, delta, cols, periodicCols);
            out.push_back(yy < 0 ? HIERAGG_PROC_NULL : at(x, yy));
        }
        return out;
    }
};

std::vector<Grid> grids() {
    return {{2, 3, true, true}, {3, 2, true, false}, {2, 2, true, true}, {1, 3, true, true},
            {1, 1, true, true}, {3, 3, false, true}, {4, 2, false, false}, {3, 3, true, true}};
}

enum class Kind { Allgather, Allgatherv, Alltoall, Alltoallv, Alltoallw };

// Words sent from sender slot j (v/w variants vary it; zero for slot 0).
size_t slotWords(Kind k, int j) {
    if (k == Kind::Alltoallv) return static_cast<size_t>(j % 3);
    if (k == Kind::Alltoallw) return 2 * static_cast<size_t>(j % 3);
    return 2;
}

void checkGrid(const Grid& g, Kind kind) {
    const int p = g.size();
    const int deg = 4;
    const bool perSlot = kind == Kind::Alltoall || kind == Kind::Alltoallv || kind == Kind::Alltoallw;
    const bool w = kind == Kind::Alltoallw;
    sim::SimNetwork net(p);
    std::vector<std::vector<int>> lists(p);
    std::vector<std::vector<int64_t>> send(p), recv(p);
    std::vector<int> scounts(deg), rcounts(deg), sdispls(deg), rdispls(deg);
    std::vector<ptrdiff_t> sbytes(deg), rbytes(deg);
    std::vector<void*> stypes(deg), rtypes(deg);
    // Receiver slot i gets the sender's slot i^1 (all-to-all kinds) or its only block.
    auto recvWords = [&](int i) { return perSlot ? slotWords(kind, i ^ 1) : (kind == Kind::Allgatherv ? 2 : 2); };
    int sat = 0, rat = 0;
    for (int j = deg - 1; j >= 0; --j) {  // reversed displacements with gaps
        sdispls[j] = sat;
        rdispls[j] = rat;
        sat += static_cast<int>(perSlot ? slotWords(kind, j) : 0) + 1;
        rat += static_cast<int>(recvWords(j)) + 1;
        stypes[j] = w && j % 2 ? &pairType() : &int64Type();
        rtypes[j] = &int64Type();
        scounts[j] = static_cast<int>(w && j % 2 ? slotWords(kind, j) / 2 : slotWords(kind, j));
        rcounts[j] = static_cast<int>(recvWords(j));
        sbytes[j] = 8 * sdispls[j];
        rbytes[j] = 8 * rdispls[j];
    }
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        lists[r] = g.neighbors(r);
        if (perSlot) {
            send[r].assign(sat, kUntouched);
            for (int j = 0; j < deg; ++j)
                for (size_t i = 0; i < slotWords(kind, j); ++i)
                    send[r][(kind == Kind::Alltoall ? 2 * j : sdispls[j]) + i] = value(r, j, i);
        } else {
            send[r] = {value(r, 0, 0), value(r, 0, 1)};
        }
        recv[r].assign(kind == Kind::Allgather || kind == Kind::Alltoall ? 2 * deg : rat, kUntouched);
        static const hieragg_coll_kind kinds[] = {HIERAGG_NEIGHBOR_ALLGATHER, HIERAGG_NEIGHBOR_ALLGATHERV,
                                                  HIERAGG_NEIGHBOR_ALLTOALL, HIERAGG_NEIGHBOR_ALLTOALLV,
                                                  HIERAGG_NEIGHBOR_ALLTOALLW};
        CollCall c = baseCall(kinds[static_cast<int>(kind)], r, p, nullptr);
        c.args.indegree = c.args.outdegree = deg;
        c.args.sources = c.args.destinations = lists[r].data();
        c.args.sbuf = send[r].data();
        c.args.rbuf = recv[r].data();
        c.args.stype = c.args.rtype = &int64Type();
        c.args.scount = c.args.rcount = 2;
        c.args.scounts = scounts.data();
        c.args.rcounts = rcounts.data();
        c.args.sdispls = sdispls.data();
        c.args.rdispls = rdispls.data();
        c.args.sdispls_bytes = sbytes.data();
        c.args.rdispls_bytes = rbytes.data();
        c.args.stypes = stypes.data();
        c.args.rtypes = rtypes.data();
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error << " grid " << g.rows << "x" << g.cols;
    for (int r = 0; r < p; ++r) {
        std::vector<int64_t> expect(recv[r].size(), kUntouched);
        for (int i = 0; i < deg; ++i) {
            const int src = lists[r][i];
            if (src < 0) continue;
            const size_t at = kind == Kind::Allgather || kind == Kind::Alltoall ? 2 * i : rdispls[i];
            for (size_t k = 0; k < recvWords(i); ++k) expect[at + k] = value(src, perSlot ? i ^ 1 : 0, k);
        }
        ASSERT_EQ(recv[r], expect) << "rank " << r << " grid " << g.rows << "x" << g.cols << " periodic "
                                   << g.periodicRows << g.periodicCols << " kind " << static_cast<int>(kind);
    }
}

}  // namespace

TEST(NeighborSim, AllgatherOnCartesianGrids) {
    for (const Grid& g : grids()) checkGrid(g, Kind::Allgather);
}
TEST(NeighborSim, AllgathervOnCartesianGrids) {
    for (const Grid& g : grids()) checkGrid(g, Kind::Allgatherv);
}
TEST(NeighborSim, AlltoallOnCartesianGridsIncludingSizeTwoDimensions) {
    for (const Grid& g : grids()) checkGrid(g, Kind::Alltoall);
}
TEST(NeighborSim, AlltoallvZeroCountsReversedDisplacements) {
    for (const Grid& g : grids()) checkGrid(g, Kind::Alltoallv);
}
TEST(NeighborSim, AlltoallwPerNeighborTypes) {
    for (const Grid& g : grids()) checkGrid(g, Kind::Alltoallw);
}

TEST(NeighborSim, DistGraphDoubledEdgesMatchInOrder) {
    // r sends to r+1 twice and to r+2; receives from r-1 twice and from r-2.
    for (int p : {3, 4, 5}) {
        sim::SimNetwork net(p);
        std::vector<std::vector<int>> srcs(p), dsts(p);
        std::vector<std::vector<int64_t>> send(p), recv(p);
        std::vector<CollCall> calls;
        for (int r = 0; r < p; ++r) {
            dsts[r] = {(r + 1) % p, (r + 1) % p, (r + 2) % p};
            srcs[r] = {(r + p - 1) % p, (r + p - 1) % p, (r + p - 2) % p};
            for (int j = 0; j < 3; ++j) send[r].push_back(value(r, j, 0));
            recv[r].assign(3, kUntouched);
            CollCall c = baseCall(HIERAGG_NEIGHBOR_ALLTOALL, r, p, nullptr);
            c.args.indegree = c.args.outdegree = 3;
            c.args.sources = srcs[r].data();
            c.args.destinations = dsts[r].data();
            c.args.sbuf = send[r].data();
            c.args.rbuf = recv[r].data();
            c.args.stype = c.args.rtype = &int64Type();
            c.args.scount = c.args.rcount = 1;
            calls.push_back(c);
        }
        auto res = sim::runOne(net, calls, recipeBuilder());
        ASSERT_TRUE(res.ok) << res.error;
        for (int r = 0; r < p; ++r)
            for (int i = 0; i < 3; ++i) EXPECT_EQ(recv[r][i], value(srcs[r][i], i, 0)) << "p=" << p << " r=" << r;
    }
}
