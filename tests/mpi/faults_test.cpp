// Faults and resources: a collective that cannot get the temporary memory it
// needs ends with an MPI error on every rank, or runs with less memory; never an
// abort, never a hang, and the communicator stays usable. The CTest entry
// mpi.temp-limit runs this with coll_hieragg_max_temp_bytes set and
// HIERAGG_TEST_EXPECT_NO_MEM=1 and the k-nomial gather forced (the gather must then fail);
// elsewhere no limit is set and everything succeeds.
#include <cstdlib>

#include "harness.hpp"

using namespace mpitest;

namespace {

class Faults : public MpiTest {};

TEST_F(Faults, TempLimitRunsSmallerOrFailsOnEveryRank) {
    const bool expectNoMem = std::getenv("HIERAGG_TEST_EXPECT_NO_MEM") != nullptr;
    MPI_Comm c;
    if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup")) return;
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);

    // A long allreduce: pulses shrink until the temporaries fit, and the result is exact.
    const int n = 64 * 1024;
    std::vector<int> s(n), r(n, -1);
    for (int i = 0; i < n; ++i) s[i] = val(rank, i);
    if (chk.ok(MPI_Allreduce(s.data(), r.data(), n, MPI_INT, MPI_SUM, c), "MPI_Allreduce under the limit"))
        for (int i = 0; i < n; ++i) {
            long e = 0;
            for (int p = 0; p < size; ++p) e += val(p, i);
            if (!chk.eq(r[i], e, "allreduce", i)) break;
        }

    // A gather: with a small limit either a schedule without temporaries runs (the flat
    // star: the root receives straight into rbuf) and the result is exact, or no schedule
    // fits (relaying ranks must hold whole blocks) and every rank says so (MPI_ERR_NO_MEM)
    // without waiting for the others. HIERAGG_TEST_EXPECT_NO_MEM=1 demands the second.
    const int k = 16 * 1024;
    std::vector<int> g(size > 1 || rank == 0 ? static_cast<size_t>(k) * size : 0, -1), mine(k);
    for (int i = 0; i < k; ++i) mine[i] = val(rank, i);
    const int rc = MPI_Gather(mine.data(), k, MPI_INT, g.data(), k, MPI_INT, 0, c);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS) {
        chk.truth(!expectNoMem, "gather succeeded although no schedule fits the limit");
        if (rank == 0)
            for (int p = 0; p < size; ++p)
                for (int i = 0; i < k; ++i)
                    if (!chk.eq(g[static_cast<size_t>(p) * k + i], val(p, i), "gather", p * k + i)) break;
    } else {
        chk.eq(cls, MPI_ERR_NO_MEM, "gather error class");
    }
    // Every rank came to the same verdict, and the communicator still works.
    int failed = rc != MPI_SUCCESS, anyFailed = -1, allFailed = -1;
    chk.ok(MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, c), "MPI_Allreduce after the gather");
    chk.ok(MPI_Allreduce(&failed, &allFailed, 1, MPI_INT, MPI_MIN, c), "MPI_Allreduce after the gather");
    chk.eq(anyFailed, allFailed, "ranks that failed the gather vs all ranks");
    if (expectNoMem && size > 1) chk.eq(allFailed, 1, "gather failed everywhere");
    chk.ok(MPI_Barrier(c), "MPI_Barrier after the gather");
    MPI_Comm_free(&c);
}

}  // namespace
