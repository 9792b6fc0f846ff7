// Collectives whose byte size exceeds INT_MAX: a 2.5 GiB bcast and allreduce
// through a derived type (contiguous 1024 doubles, count 327680). Every element
// is checked against its closed form, so a truncated count or a wrapped offset
// shows as wrong data; an error must come back as an MPI error, never a crash.
// Run by CTest as its own entry (label "large"), np 2, after a free-memory check.
#include <mpi.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kBlock = 1024;           // doubles per derived element
constexpr int kCountDefault = 327680;  // 2.5 GiB

double bcastValue(size_t i) { return static_cast<double>(i % 1000003) * 0.5; }
double contribution(int rank, size_t i) { return static_cast<double>((i * 7 + static_cast<size_t>(rank)) % 4096); }

// MPI_SUM is not defined on derived types (Open MPI returns MPI_ERR_OP), so the
// derived-type allreduce uses this commutative user op: elementwise sum of blocks.
void blockSum(void* in, void* inout, int* len, MPI_Datatype*) {
    const double* a = static_cast<const double*>(in);
    double* b = static_cast<double*>(inout);
    const size_t n = static_cast<size_t>(*len) * kBlock;
    for (size_t i = 0; i < n; ++i) b[i] += a[i];
}

int failures = 0;
void fail(int rank, const char* what, size_t i, double got, double want) {
    if (failures++ < 5)
        std::printf("rank %d: %s: element %zu: got %.17g, expected %.17g\n", rank, what, i, got, want);
}

bool mpiOk(int rc, int rank, const char* what) {
    if (rc == MPI_SUCCESS) return true;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    std::printf("rank %d: %s returned an error: %s\n", rank, what, msg);
    ++failures;
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int count = argc > 1 ? std::atoi(argv[1]) : kCountDefault;
    const size_t n = static_cast<size_t>(count) * kBlock;
    MPI_Datatype block;
    MPI_Type_contiguous(kBlock, MPI_DOUBLE, &block);
    MPI_Type_commit(&block);
    if (rank == 0)
        std::printf("large_count: %d ranks, %d x %d doubles = %zu bytes (INT_MAX = %d)\n", size, count, kBlock,
                    n * sizeof(double), 2147483647);

    std::vector<double> buf;
    try {
        buf.resize(n);
    } catch (const std::bad_alloc&) {
        std::printf("rank %d: cannot allocate %zu bytes\n", rank, n * sizeof(double));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    // Bcast from the last rank.
    const int root = size - 1;
    for (size_t i = 0; i < n; ++i) buf[i] = rank == root ? bcastValue(i) : -1.0;
    double t0 = MPI_Wtime();
    if (mpiOk(MPI_Bcast(buf.data(), count, block, root, MPI_COMM_WORLD), rank, "MPI_Bcast"))
        for (size_t i = 0; i < n; ++i)
            if (buf[i] != bcastValue(i)) fail(rank, "bcast", i, buf[i], bcastValue(i));
    const double tBcast = MPI_Wtime() - t0;

    // Allreduce in place (one buffer per rank keeps memory at 2.5 GiB a rank).
    MPI_Op op;
    MPI_Op_create(blockSum, 1, &op);
    for (size_t i = 0; i < n; ++i) buf[i] = contribution(rank, i);
    t0 = MPI_Wtime();
    if (mpiOk(MPI_Allreduce(MPI_IN_PLACE, buf.data(), count, block, op, MPI_COMM_WORLD), rank, "MPI_Allreduce"))
        for (size_t i = 0; i < n; ++i) {
            double want = 0;
            for (int r = 0; r < size; ++r) want += contribution(r, i);  // small integers: exact
            if (buf[i] != want) fail(rank, "allreduce", i, buf[i], want);
        }
    const double tAllreduce = MPI_Wtime() - t0;
    MPI_Op_free(&op);

    if (rank == 0) std::printf("large_count: bcast %.2f s, allreduce %.2f s\n", tBcast, tAllreduce);
    if (failures) std::printf("rank %d: %d failure(s)\n", rank, failures);
    int bad = failures ? 1 : 0;
    // The verdict travels point to point: collectives are what is under test.
    if (rank == 0) {
        for (int r = 1; r < size; ++r) {
            int b = 0;
            MPI_Recv(&b, 1, MPI_INT, r, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad |= b;
        }
        std::printf("large_count: %s\n", bad ? "FAILED" : "OK");
    } else {
        MPI_Send(&bad, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
    }
    MPI_Type_free(&block);
    MPI_Finalize();
    return bad;
}
