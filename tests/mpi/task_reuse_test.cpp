// Reused tasks (Runtime::takeTask, hieragg_comm::spareTask) must carry nothing from one
// call into the next: back-to-back calls of different collectives, sizes, roots and
// datatypes on one communicator, with nonblocking and persistent calls in flight between
// blocking ones, each result checked against a closed form.
#include <algorithm>

#include "harness.hpp"

using namespace mpitest;

namespace {

class TaskReuse : public MpiTest {};

// Counts of the rounds: 1 and 3 elements (temporaries in a reused task's arena), 5000
// (20 kB of ints: temporaries allocated one by one), 17 (back in the arena).
constexpr int kCounts[] = {1, 3, 5000, 17};

TEST_F(TaskReuse, BackToBackCallsCarryNothingOver) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int n = size;
    // A persistent allreduce initialised first and started between the blocking calls.
    int pIn = 0, pOut = -1;
    MPI_Request persistent;
    chk.ok(MPIX_Allreduce_init(&pIn, &pOut, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &persistent),
           "allreduce_init");
    for (int round = 0; round < 8; ++round) {
        const int count = kCounts[round % 4];
        const int root = (round * 3 + 1) % n;
        const std::string at = "round " + std::to_string(round) + ": ";
        std::vector<int> a(count), b(count);

        // A nonblocking allreduce left in flight across the blocking calls below.
        int iIn = rank + round, iOut = -1;
        MPI_Request ireq;
        chk.ok(MPI_Iallreduce(&iIn, &iOut, 1, MPI_INT, MPI_MAX, comm, &ireq), "iallreduce");
        pIn = rank * round;
        chk.ok(MPI_Start(&persistent), "start");

        // bcast from root
        for (int i = 0; i < count; ++i) a[i] = rank == root ? val(root, i) + round : -1;
        chk.ok(MPI_Bcast(a.data(), count, MPI_INT, root, comm), "bcast");
        for (int i = 0; i < count; ++i)
            if (!chk.eq(a[i], val(root, i) + round, at + "bcast", i)) break;

        // reduce (sum) to root
        for (int i = 0; i < count; ++i) a[i] = val(rank, i);
        std::fill(b.begin(), b.end(), -1);
        chk.ok(MPI_Reduce(a.data(), b.data(), count, MPI_INT, MPI_SUM, root, comm), "reduce");
        if (rank == root)
            for (int i = 0; i < count; ++i) {
                long exp = 0;
                for (int r = 0; r < n; ++r) exp += val(r, i);
                if (!chk.eq(b[i], exp, at + "reduce", i)) break;
            }

        // scan (sum): rank r gets the sum over ranks 0..r
        chk.ok(MPI_Scan(a.data(), b.data(), count, MPI_INT, MPI_SUM, comm), "scan");
        for (int i = 0; i < count; ++i) {
            long exp = 0;
            for (int r = 0; r <= rank; ++r) exp += val(r, i);
            if (!chk.eq(b[i], exp, at + "scan", i)) break;
        }

        // gather of one derived element (3 ints, stride 2) per rank into ints at root
        std::vector<int> vec(5, -7);
        for (int k = 0; k < 3; ++k) vec[2 * k] = val(rank, k + round);
        std::vector<int> g(rank == root ? 3 * n : 0, -1);
        chk.ok(MPI_Gather(vec.data(), 1, types().vec3, g.data(), 3, MPI_INT, root, comm), "gather");
        if (rank == root)
            for (int r = 0; r < n; ++r)
                for (int k = 0; k < 3; ++k)
                    if (!chk.eq(g[3 * r + k], val(r, k + round), at + "gather", 3 * r + k)) r = n;

        // scatter of `count` ints per rank from root
        std::vector<int> s(rank == root ? static_cast<size_t>(count) * n : 0);
        for (size_t i = 0; i < s.size(); ++i) s[i] = val(static_cast<int>(i / count), static_cast<long>(i)) - round;
        std::fill(b.begin(), b.end(), -1);
        chk.ok(MPI_Scatter(s.data(), count, MPI_INT, b.data(), count, MPI_INT, root, comm), "scatter");
        for (int i = 0; i < count; ++i)
            if (!chk.eq(b[i], val(rank, static_cast<long>(rank) * count + i) - round, at + "scatter", i)) break;

        chk.ok(MPI_Barrier(comm), "barrier");

        // allreduce (max) in place
        for (int i = 0; i < count; ++i) a[i] = val(rank, i) * ((i + round) % 2 ? 1 : -1);
        chk.ok(MPI_Allreduce(MPI_IN_PLACE, a.data(), count, MPI_INT, MPI_MAX, comm), "allreduce");
        for (int i = 0; i < count; ++i) {
            const int sign = (i + round) % 2 ? 1 : -1;
            const int exp = sign > 0 ? val(n - 1, i) : -val(0, i);
            if (!chk.eq(a[i], exp, at + "allreduce", i)) break;
        }

        chk.ok(MPI_Wait(&ireq, MPI_STATUS_IGNORE), "wait iallreduce");
        chk.eq(iOut, n - 1 + round, at + "iallreduce");
        chk.ok(MPI_Wait(&persistent, MPI_STATUS_IGNORE), "wait persistent");
        chk.eq(pOut, round * n * (n - 1) / 2, at + "persistent allreduce");
    }
    MPI_Request_free(&persistent);
    MPI_Comm_free(&comm);
}

// The last call's arguments are remembered by handle only for predefined datatypes: a
// derived type freed between two identical-looking calls, and a new one of another layout
// (often at the same address), must not run the old schedule; nor may in-place and
// not-in-place calls of the same counts share one.
TEST_F(TaskReuse, RepeatedArgumentsWithNewTypesAndInPlace) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int root = size - 1;
    for (int round = 0; round < 4; ++round) {
        const std::string at = "round " + std::to_string(round) + ": ";
        // Even rounds: 2 contiguous ints; odd rounds: 2 ints with stride 3 (extent 4 ints).
        MPI_Datatype t;
        if (round % 2 == 0)
            MPI_Type_contiguous(2, MPI_INT, &t);
        else
            MPI_Type_vector(2, 1, 3, MPI_INT, &t);
        MPI_Type_commit(&t);
        const int stride = round % 2 == 0 ? 1 : 3, extent = round % 2 == 0 ? 2 : 4;
        // A gather places block r at r extents: the old layout would misplace them.
        std::vector<int> mine(extent, -7), all(rank == root ? size * extent : 0, -1);
        for (int k = 0; k < 2; ++k) mine[k * stride] = val(rank, k) + round;
        chk.ok(MPI_Gather(mine.data(), 1, t, all.data(), 1, t, root, comm), "gather");
        if (rank == root)
            for (int r = 0; r < size; ++r)
                for (int k = 0; k < 2; ++k)
                    chk.eq(all[r * extent + k * stride], val(r, k) + round, at + "gather", r * extent + k * stride);
        MPI_Type_free(&t);

        // The same reduce twice at the root, in place and not: the counts and types agree.
        std::vector<int> in(4), out(4, -1);
        for (int i = 0; i < 4; ++i) in[i] = val(rank, i) + round;
        const bool inPlace = round % 2 == 1;
        if (rank == root && inPlace) {
            out = in;
            chk.ok(MPI_Reduce(MPI_IN_PLACE, out.data(), 4, MPI_INT, MPI_SUM, root, comm), "reduce in place");
        } else {
            chk.ok(MPI_Reduce(in.data(), out.data(), 4, MPI_INT, MPI_SUM, root, comm), "reduce");
        }
        if (rank == root)
            for (int i = 0; i < 4; ++i) {
                long exp = 0;
                for (int r = 0; r < size; ++r) exp += val(r, i) + round;
                chk.eq(out[i], exp, at + (inPlace ? "reduce in place" : "reduce"), i);
            }
    }
    MPI_Comm_free(&comm);
}

// Reduce_scatter's counts and allgatherv's counts and displacements are part of the cached
// schedule's key (CallCacheKeys.hpp): the same total split differently, the same counts at
// other displacements, each repeated, and nonblocking calls of two splits in flight at once
// must each place their own blocks.
TEST_F(TaskReuse, VectorCollectivesKeyTheirCounts) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int n = size;
    // Split s gives rank r (r + s) % 3 elements (some ranks none).
    auto countsOf = [n](int s) {
        std::vector<int> c(n);
        for (int r = 0; r < n; ++r) c[r] = (r + s) % 3;
        return c;
    };
    auto offsetsOf = [n](const std::vector<int>& c, int gap) {
        std::vector<int> d(n);
        for (int r = 0, at = 0; r < n; ++r) { d[r] = at; at += c[r] + gap; }
        return d;
    };
    for (int round = 0; round < 6; ++round) {
        const int split = round % 3;  // each split twice: a built and a cached schedule
        const std::string at = "round " + std::to_string(round) + ": ";
        const std::vector<int> counts = countsOf(split);
        int total = 0, mine = 0;
        for (int r = 0; r < n; ++r) { if (r < rank) mine += counts[r]; total += counts[r]; }
        std::vector<int> in(std::max(total, 1)), out(std::max(counts[rank], 1), -1);
        for (int i = 0; i < total; ++i) in[i] = val(rank, i) + round;
        chk.ok(MPI_Reduce_scatter(in.data(), out.data(), counts.data(), MPI_INT, MPI_SUM, comm), "reduce_scatter");
        for (int i = 0; i < counts[rank]; ++i) {
            long exp = 0;
            for (int r = 0; r < n; ++r) exp += val(r, mine + i) + round;
            if (!chk.eq(out[i], exp, at + "reduce_scatter", i)) break;
        }

        // allgatherv: the same counts with a gap of `round % 2` ints between blocks.
        const std::vector<int> displs = offsetsOf(counts, round % 2);
        std::vector<int> all(displs[n - 1] + counts[n - 1] + 1, -1), blk(std::max(counts[rank], 1));
        for (int i = 0; i < counts[rank]; ++i) blk[i] = val(rank, i) - round;
        chk.ok(MPI_Allgatherv(blk.data(), counts[rank], MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT,
                              comm),
               "allgatherv");
        for (int r = 0; r < n; ++r)
            for (int i = 0; i < counts[r]; ++i)
                if (!chk.eq(all[displs[r] + i], val(r, i) - round, at + "allgatherv", displs[r] + i)) r = n;
    }
    // Back-to-back calls of one kind with the same arguments but the vectors rewritten in
    // place (the same arrays, other values): each call places its own blocks. Rounds 0-2
    // change the counts, round 3 repeats round 2 exactly (allgatherv: other displacements).
    std::vector<int> counts(n), displs(n), in(3 * n + 1), out(3, -1), all(3 * n + 1), blk(3);
    for (int round = 0; round < 4; ++round) {
        const std::string at = "rewritten counts " + std::to_string(round) + ": ";
        counts = countsOf(std::min(round, 2));
        int total = 0, mine = 0;
        for (int r = 0; r < n; ++r) { if (r < rank) mine += counts[r]; total += counts[r]; }
        for (int i = 0; i < total; ++i) in[i] = val(rank, i) * (round + 1);
        std::fill(out.begin(), out.end(), -1);
        chk.ok(MPI_Reduce_scatter(in.data(), out.data(), counts.data(), MPI_INT, MPI_SUM, comm), "reduce_scatter");
        for (int i = 0; i < counts[rank]; ++i) {
            long exp = 0;
            for (int r = 0; r < n; ++r) exp += val(r, mine + i) * (round + 1);
            if (!chk.eq(out[i], exp, at + "reduce_scatter", i)) break;
        }
    }
    for (int round = 0; round < 5; ++round) {
        const std::string at = "rewritten displacements " + std::to_string(round) + ": ";
        counts = countsOf(std::min(round, 2));
        displs = offsetsOf(counts, round == 3 ? 1 : 0);  // round 4 repeats round 3 exactly
        if (round == 4) displs = offsetsOf(counts, 1);
        for (int i = 0; i < counts[rank]; ++i) blk[i] = val(rank, i) + 7 * round;
        std::fill(all.begin(), all.end(), -1);
        chk.ok(MPI_Allgatherv(blk.data(), counts[rank], MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT,
                              comm),
               "allgatherv");
        for (int r = 0; r < n; ++r)
            for (int i = 0; i < counts[r]; ++i)
                if (!chk.eq(all[displs[r] + i], val(r, i) + 7 * round, at + "allgatherv", displs[r] + i)) r = n;
    }
    // Two nonblocking reduce_scatters of different splits in flight together.
    const std::vector<int> c0 = countsOf(0), c1 = countsOf(1);
    int total0 = 0, total1 = 0, mine0 = 0, mine1 = 0;
    for (int r = 0; r < n; ++r) {
        if (r < rank) { mine0 += c0[r]; mine1 += c1[r]; }
        total0 += c0[r];
        total1 += c1[r];
    }
    std::vector<int> in0(std::max(total0, 1)), in1(std::max(total1, 1)), out0(3, -1), out1(3, -1);
    for (int i = 0; i < total0; ++i) in0[i] = val(rank, i);
    for (int i = 0; i < total1; ++i) in1[i] = -val(rank, i);
    MPI_Request req[2];
    chk.ok(MPI_Ireduce_scatter(in0.data(), out0.data(), c0.data(), MPI_INT, MPI_SUM, comm, &req[0]), "ireduce_scatter");
    chk.ok(MPI_Ireduce_scatter(in1.data(), out1.data(), c1.data(), MPI_INT, MPI_SUM, comm, &req[1]), "ireduce_scatter");
    chk.ok(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), "waitall");
    for (int i = 0; i < c0[rank]; ++i) {
        long exp = 0;
        for (int r = 0; r < n; ++r) exp += val(r, mine0 + i);
        chk.eq(out0[i], exp, "ireduce_scatter split 0", i);
    }
    for (int i = 0; i < c1[rank]; ++i) {
        long exp = 0;
        for (int r = 0; r < n; ++r) exp -= val(r, mine1 + i);
        chk.eq(out1[i], exp, "ireduce_scatter split 1", i);
    }
    MPI_Comm_free(&comm);
}

// Every vector collective caches its schedule under a digest of its vectors and compares
// the vectors themselves on a hit (ScheduleCache.hpp): the same arrays rewritten in place
// between back-to-back calls (rounds 0-2 change them, round 3 repeats round 2) must each
// place their own blocks. Alltoallv, gatherv and scatterv, blocks of (a + b + s) % 3 ints
// with gaps of s ints.
TEST_F(TaskReuse, RewrittenVectorsOfEveryVectorCollective) {
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    const int n = size;
    std::vector<int> scounts(n), sdispls(n), rcounts(n), rdispls(n);
    for (int round = 0; round < 4; ++round) {
        const int s = std::min(round, 2), root = s % n;
        const std::string at = "round " + std::to_string(round) + ": ";
        auto cnt = [s](int from, int to) { return (from + to + s) % 3; };
        int sEnd = 0, rEnd = 0;
        for (int d = 0; d < n; ++d) {
            scounts[d] = cnt(rank, d);
            sdispls[d] = sEnd;
            sEnd += scounts[d] + s;
            rcounts[d] = cnt(d, rank);
            rdispls[d] = rEnd;
            rEnd += rcounts[d] + s;
        }
        std::vector<int> sbuf(sEnd + 1), rbuf(rEnd + 1, -1);
        for (int d = 0; d < n; ++d)
            for (int i = 0; i < scounts[d]; ++i) sbuf[sdispls[d] + i] = val(rank, d * 3 + i) + round;
        chk.ok(MPI_Alltoallv(sbuf.data(), scounts.data(), sdispls.data(), MPI_INT, rbuf.data(), rcounts.data(),
                             rdispls.data(), MPI_INT, comm),
               "alltoallv");
        bool ok = true;
        for (int f = 0; f < n && ok; ++f)
            for (int i = 0; i < rcounts[f] && ok; ++i)
                ok = chk.eq(rbuf[rdispls[f] + i], val(f, rank * 3 + i) + round, at + "alltoallv", rdispls[f] + i);

        // gatherv to `root`: rank r's block is cnt(r, 0) ints; at the root, the same arrays
        // rewritten as its receive vectors.
        int gEnd = 0;
        for (int r = 0; r < n; ++r) {
            rcounts[r] = cnt(r, 0);
            rdispls[r] = gEnd;
            gEnd += rcounts[r] + s;
        }
        std::vector<int> mine(3), all(gEnd + 1, -1);
        for (int i = 0; i < cnt(rank, 0); ++i) mine[i] = val(rank, i) - round;
        chk.ok(MPI_Gatherv(mine.data(), cnt(rank, 0), MPI_INT, all.data(), rcounts.data(), rdispls.data(), MPI_INT,
                           root, comm),
               "gatherv");
        ok = true;
        for (int r = 0; r < n && ok && rank == root; ++r)
            for (int i = 0; i < rcounts[r] && ok; ++i)
                ok = chk.eq(all[rdispls[r] + i], val(r, i) - round, at + "gatherv", rdispls[r] + i);

        // scatterv from `root`, the gathered layout back.
        for (int r = 0; r < n; ++r) {
            scounts[r] = rcounts[r];
            sdispls[r] = rdispls[r];
        }
        std::vector<int> src(gEnd + 1), got(3, -1);
        for (int r = 0; r < n; ++r)
            for (int i = 0; i < scounts[r]; ++i) src[sdispls[r] + i] = val(r, i) * (round + 2);
        chk.ok(MPI_Scatterv(src.data(), scounts.data(), sdispls.data(), MPI_INT, got.data(), cnt(rank, 0), MPI_INT,
                            root, comm),
               "scatterv");
        for (int i = 0; i < cnt(rank, 0); ++i)
            if (!chk.eq(got[i], val(rank, i) * (round + 2), at + "scatterv", i)) break;
    }
    MPI_Comm_free(&comm);
}

}  // namespace
