// Communicator info keys that decide whether hieragg serves a communicator:
// "hieragg_disable" (ours) and "ompi_comm_coll_preference" (Open MPI's; HAN
// sets it on the sub-communicators it builds for itself). Each communicator
// runs a collective no Open MPI internals use, so the mpi.info-keys entry can
// tell from coll_hieragg_verbose=2 which of them hieragg served; here every
// result is checked whoever computed it.
#include "harness.hpp"

#include <cstdlib>
#include <cstring>

using namespace mpitest;

namespace {

class InfoKeys : public MpiTest {
protected:
    // A duplicate of MPI_COMM_WORLD carrying KEY=VALUE.
    MPI_Comm dupWith(const char* key, const char* value) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
        MPI_Comm c = MPI_COMM_NULL;
        chk.ok(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c), (std::string("MPI_Comm_dup_with_info ") + key).c_str());
        MPI_Info_free(&info);
        if (c != MPI_COMM_NULL) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        return c;
    }
    // Inclusive prefix sums of val(q, i) over q <= rank (MPI_Scan), or q < rank (MPI_Exscan).
    void checkScan(MPI_Comm c, bool exclusive, const char* what) {
        const int n = 7;
        std::vector<int> s(n), r(n, -1);
        for (int i = 0; i < n; ++i) s[i] = val(rank, i);
        int rc = exclusive ? MPI_Exscan(s.data(), r.data(), n, MPI_INT, MPI_SUM, c)
                           : MPI_Scan(s.data(), r.data(), n, MPI_INT, MPI_SUM, c);
        if (!chk.ok(rc, what) || (exclusive && rank == 0)) return;
        for (int i = 0; i < n; ++i) {
            long e = 0;
            for (int q = 0; q < (exclusive ? rank : rank + 1); ++q) e += val(q, i);
            chk.eq(r[i], e, what, i);
        }
    }
    void checkIreduceScatterBlock(MPI_Comm c, const char* what) {
        const int k = 3;
        std::vector<int> s(k * size), r(k, -1);
        for (int i = 0; i < k * size; ++i) s[i] = val(rank, i);
        MPI_Request q = MPI_REQUEST_NULL;
        if (!chk.ok(MPI_Ireduce_scatter_block(s.data(), r.data(), k, MPI_INT, MPI_SUM, c, &q), what) ||
            !chk.ok(MPI_Wait(&q, MPI_STATUS_IGNORE), what))
            return;
        for (int i = 0; i < k; ++i) {
            long e = 0;
            for (int q = 0; q < size; ++q) e += val(q, rank * k + i);
            chk.eq(r[i], e, what, i);
        }
    }
};

TEST_F(InfoKeys, ChooseWhoServesTheCommunicator) {
    // A preference that names hieragg: hieragg serves it (exscan).
    MPI_Comm mine = dupWith("ompi_comm_coll_preference", "hieragg,tuned");
    if (mine != MPI_COMM_NULL) {
        checkScan(mine, true, "MPI_Exscan on preference=hieragg,tuned");
        MPI_Comm_free(&mine);
    }
    // With --mca coll hieragg no other component could take the next two.
    const char* only = std::getenv("OMPI_MCA_coll");
    if (only && 0 == std::strcmp(only, "hieragg")) return;
    MPI_Comm off = dupWith("hieragg_disable", "true");  // scan, by Open MPI's own components
    if (off != MPI_COMM_NULL) {
        checkScan(off, false, "MPI_Scan on hieragg_disable=true");
        MPI_Comm_free(&off);
    }
    // Nonblocking: tuned has none, so without the preference rule hieragg (above
    // libnbc) would serve it.
    MPI_Comm theirs = dupWith("ompi_comm_coll_preference", "tuned,^han");
    if (theirs != MPI_COMM_NULL) {
        checkIreduceScatterBlock(theirs, "MPI_Ireduce_scatter_block on preference=tuned,^han");
        MPI_Comm_free(&theirs);
    }
}

}  // namespace
