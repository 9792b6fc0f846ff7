// Offloaded leader stages (docs/offload.md): barrier, bcast and allreduce whose leader
// space runs as a libfabric collective, and every call the offload cannot take (user and
// non-commutative ops, MAXLOC, datatypes without one basic element) falling back to
// point-to-point, on the same communicators, interleaved and in flight together. The
// same tests pass without offload (coll_hieragg_offload=off, bad providers): CTest
// checks from the verbose output and the warnings which path ran (tests/mpi/CMakeLists.txt).
// References are closed forms of the inputs.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <ctime>
#include <vector>

#include "harness.hpp"

namespace {

using mpitest::MpiTest;

class Offload : public MpiTest {};

// x[i] on rank r: exact in double and float (small halves), so sums have one answer.
double dval(int r, long i) { return r + 0.5 * static_cast<double>(i % 64); }

void checkDoubleSum(mpitest::Check& chk, const std::vector<double>& got, int n, const char* what) {
    for (long i = 0; i < static_cast<long>(got.size()); ++i) {
        const double want = n * (n - 1) / 2.0 + n * 0.5 * static_cast<double>(i % 64);
        if (!chk.eq(got[i], want, what, i)) return;
    }
}

void allreduceSuite(mpitest::Check& chk, MPI_Comm comm) {
    int n = 0, me = 0;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    // Doubles, SUM: single elements, odd counts, many pulses (segment 64 KiB: 13 pulses).
    for (long count : {1L, 7L, 1000L, 100000L}) {
        std::vector<double> in(count), out(count, -1.0);
        for (long i = 0; i < count; ++i) in[i] = dval(me, i);
        chk.ok(MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM, comm),
               "allreduce double sum");
        checkDoubleSum(chk, out, n, "allreduce double sum");
        // In place.
        chk.ok(MPI_Allreduce(MPI_IN_PLACE, in.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM, comm),
               "allreduce in place");
        checkDoubleSum(chk, in, n, "allreduce in place");
    }
    // Integers: MIN, MAX, BAND, BOR, BXOR; 64-bit SUM; float MAX.
    {
        const int count = 333;
        std::vector<int> in(count), out(count);
        for (int i = 0; i < count; ++i) in[i] = mpitest::val(me, i);
        chk.ok(MPI_Allreduce(in.data(), out.data(), count, MPI_INT, MPI_MIN, comm), "int min");
        for (int i = 0; i < count; ++i) chk.eq(out[i], mpitest::val(0, i), "int min", i);
        chk.ok(MPI_Allreduce(in.data(), out.data(), count, MPI_INT, MPI_MAX, comm), "int max");
        for (int i = 0; i < count; ++i) chk.eq(out[i], mpitest::val(n - 1, i), "int max", i);
        for (int i = 0; i < count; ++i) in[i] = 1 << ((me + i) % 31);
        chk.ok(MPI_Allreduce(in.data(), out.data(), count, MPI_INT, MPI_BOR, comm), "int bor");
        for (int i = 0; i < count; ++i) {
            int want = 0;
            for (int r = 0; r < n; ++r) want |= 1 << ((r + i) % 31);
            chk.eq(out[i], want, "int bor", i);
        }
        chk.ok(MPI_Allreduce(in.data(), out.data(), count, MPI_INT, MPI_BXOR, comm), "int bxor");
        for (int i = 0; i < count; ++i) {
            int want = 0;
            for (int r = 0; r < n; ++r) want ^= 1 << ((r + i) % 31);
            chk.eq(out[i], want, "int bxor", i);
        }
        std::vector<int64_t> big(count), bigOut(count);
        for (int i = 0; i < count; ++i) big[i] = (int64_t{1} << 40) * (me + 1) + i;
        chk.ok(MPI_Allreduce(big.data(), bigOut.data(), count, MPI_INT64_T, MPI_SUM, comm), "int64 sum");
        for (int i = 0; i < count; ++i)
            chk.eq(bigOut[i], (int64_t{1} << 40) * n * (n + 1) / 2 + int64_t{n} * i, "int64 sum", i);
        std::vector<float> f(count), fOut(count);
        for (int i = 0; i < count; ++i) f[i] = static_cast<float>((me * 7 + i) % 11);
        chk.ok(MPI_Allreduce(f.data(), fOut.data(), count, MPI_FLOAT, MPI_MAX, comm), "float max");
        for (int i = 0; i < count; ++i) {
            float want = 0;
            for (int r = 0; r < n; ++r) want = std::max(want, static_cast<float>((r * 7 + i) % 11));
            chk.eq(fOut[i], want, "float max", i);
        }
    }
}

// Commutative user op: element-wise sum of ints (never offloaded).
void userSum(void* in, void* inout, int* len, MPI_Datatype*) {
    for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<int*>(in)[i];
}
// Non-commutative: 2x2 integer matrix product in rank order (never offloaded).
void matMul(void* in, void* inout, int* len, MPI_Datatype*) {
    const int* a = static_cast<int*>(in);
    int* b = static_cast<int*>(inout);
    for (int k = 0; k < *len; ++k, a += 4, b += 4) {
        const int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                          a[2] * b[1] + a[3] * b[3]};
        for (int j = 0; j < 4; ++j) b[j] = c[j];
    }
}

void fallbackSuite(mpitest::Check& chk, MPI_Comm comm) {
    int n = 0, me = 0;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    MPI_Op sum, mat;
    MPI_Op_create(userSum, 1, &sum);
    MPI_Op_create(matMul, 0, &mat);
    std::vector<int> in(100), out(100);
    for (int i = 0; i < 100; ++i) in[i] = mpitest::val(me, i);
    chk.ok(MPI_Allreduce(in.data(), out.data(), 100, MPI_INT, sum, comm), "user op");
    for (int i = 0; i < 100; ++i) {
        long want = 0;
        for (int r = 0; r < n; ++r) want += mpitest::val(r, i);
        chk.eq(out[i], want, "user op", i);
    }
    // Rank r contributes [[1, r+1], [r, 1]]; the reference multiplies them in rank order.
    int m[4] = {1, me + 1, me, 1}, got[4] = {0, 0, 0, 0};
    MPI_Datatype mat4;
    MPI_Type_contiguous(4, MPI_INT, &mat4);
    MPI_Type_commit(&mat4);
    chk.ok(MPI_Allreduce(m, got, 1, mat4, mat, comm), "non-commutative op");
    int ref[4] = {1, 1, 0, 1};  // rank 0's matrix
    for (int r = 1; r < n; ++r) {
        const int a[4] = {ref[0], ref[1], ref[2], ref[3]}, b[4] = {1, r + 1, r, 1};
        ref[0] = a[0] * b[0] + a[1] * b[2];
        ref[1] = a[0] * b[1] + a[1] * b[3];
        ref[2] = a[2] * b[0] + a[3] * b[2];
        ref[3] = a[2] * b[1] + a[3] * b[3];
    }
    for (int j = 0; j < 4; ++j) chk.eq(got[j], ref[j], "non-commutative op (rank order)", j);
    MPI_Type_free(&mat4);
    // MAXLOC on pairs: two basic types, never offloaded.
    struct {
        double v;
        int loc;
    } pin{static_cast<double>((me * 5) % n), me}, pout{};
    chk.ok(MPI_Allreduce(&pin, &pout, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm), "maxloc");
    double best = -1;
    int where = -1;
    for (int r = 0; r < n; ++r)
        if (static_cast<double>((r * 5) % n) > best) best = (r * 5) % n, where = r;
    chk.eq(pout.v, best, "maxloc value");
    chk.eq(pout.loc, where, "maxloc index");
    MPI_Op_free(&sum);
    MPI_Op_free(&mat);
}

void bcastSuite(mpitest::Check& chk, MPI_Comm comm) {
    int n = 0, me = 0;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    for (long bytes : {1L, 13L, 4099L, (1L << 20) + 5}) {
        for (int root = 0; root < n; ++root) {
            std::vector<unsigned char> buf(bytes);
            for (long i = 0; i < bytes; ++i)
                buf[i] = me == root ? static_cast<unsigned char>((i * 31 + root) & 0xff) : 0xEE;
            chk.ok(MPI_Bcast(buf.data(), static_cast<int>(bytes), MPI_BYTE, root, comm), "bcast");
            for (long i = 0; i < bytes; ++i)
                if (!chk.eq(static_cast<int>(buf[i]), static_cast<int>((i * 31 + root) & 0xff), "bcast", i)) break;
        }
    }
    // A non-contiguous type: packed on the wire.
    const MPI_Datatype vec3 = mpitest::types().vec3;  // 3 ints, stride 2
    const int count = 40;
    for (int root : {0, n - 1}) {
        std::vector<int> buf(count * 5 + 5, -7);
        for (int k = 0; k < count; ++k)
            for (int j = 0; j < 3; ++j) buf[k * 5 + 2 * j] = me == root ? mpitest::val(root, k * 3 + j) : -1;
        chk.ok(MPI_Bcast(buf.data(), count, vec3, root, comm), "bcast vec3");
        for (int k = 0; k < count; ++k)
            for (int j = 0; j < 3; ++j) chk.eq(buf[k * 5 + 2 * j], mpitest::val(root, k * 3 + j), "bcast vec3");
        chk.eq(buf[1], -7, "bcast vec3 gap untouched");
    }
}

TEST_F(Offload, AllreduceClosedForms) { allreduceSuite(chk, MPI_COMM_WORLD); }

TEST_F(Offload, FallbackOps) { fallbackSuite(chk, MPI_COMM_WORLD); }

TEST_F(Offload, BcastEveryRoot) { bcastSuite(chk, MPI_COMM_WORLD); }

// Rank 0 enters late: nobody may leave before it entered.
TEST_F(Offload, BarrierHoldsEveryone) {
    // No rank may leave the barrier before rank 0 entered it. Compared on the clock every
    // rank shares here (one kernel: one machine or its network namespaces), not as a wait
    // of each rank: a rank that was itself scheduled late waits less and is still right.
    // CLOCK_MONOTONIC, not MPI_Wtime: Open MPI counts MPI_Wtime from a per-process origin.
    auto now = [] {
        timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    };
    for (int round = 0; round < 3; ++round) {
        double entered = 0;
        if (rank == 0) {
            usleep(150 * 1000);
            entered = now();
        }
        chk.ok(MPI_Barrier(MPI_COMM_WORLD), "barrier");
        const double left = now();
        if (rank == 0) {
            for (int r = 1; r < size; ++r) MPI_Send(&entered, 1, MPI_DOUBLE, r, 77, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&entered, 1, MPI_DOUBLE, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            chk.truth(left >= entered, "left the barrier before rank 0 entered it");
        }
    }
}

// Offloaded and point-to-point calls in flight together on two communicators: the
// offloaded ones must start in call order on every leader (tickets).
TEST_F(Offload, ManyInFlightTwoComms) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Op user;
    MPI_Op_create(userSum, 1, &user);
    const int k = 8;
    std::vector<std::vector<double>> in(k), out(k);
    std::vector<std::vector<int>> iin(k), iout(k);
    std::vector<MPI_Request> req;
    for (int j = 0; j < k; ++j) {
        const long count = 1 + j * 4000;
        in[j].resize(count);
        out[j].assign(count, -1);
        for (long i = 0; i < count; ++i) in[j][i] = dval(rank, i);
        iin[j].assign(17, rank + j);
        iout[j].assign(17, -1);
        MPI_Comm c = j % 2 ? dup : MPI_COMM_WORLD;
        req.emplace_back();
        chk.ok(MPI_Iallreduce(in[j].data(), out[j].data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM, c,
                              &req.back()),
               "iallreduce");
        req.emplace_back();
        chk.ok(MPI_Iallreduce(iin[j].data(), iout[j].data(), 17, MPI_INT, user, c, &req.back()), "iallreduce user");
        req.emplace_back();
        chk.ok(MPI_Ibarrier(c, &req.back()), "ibarrier");
    }
    chk.ok(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE), "waitall");
    for (int j = 0; j < k; ++j) {
        checkDoubleSum(chk, out[j], size, "iallreduce in flight");
        for (int i = 0; i < 17; ++i) chk.eq(iout[j][i], size * (size - 1) / 2 + size * j, "iallreduce user", i);
    }
    allreduceSuite(chk, dup);
    MPI_Op_free(&user);
    MPI_Comm_free(&dup);
}

// Byte i of a broadcast from `root` in call j (closed form).
unsigned char bval(long i, int root, int j) { return static_cast<unsigned char>((i * 7 + root * 13 + j * 29) & 0xff); }

// Triggered chain bcasts (sockets provider): several in flight on two communicators with
// different roots and sizes (their tickets keep the leaders' counters apart), then one whose
// ranks describe the same ints differently (contiguous on the root, strided elsewhere).
TEST_F(Offload, TriggeredBcastsInFlight) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    const long sizes[] = {1, 5000, 300001, 64, 70000, 2};
    const int k = 6;
    std::vector<std::vector<unsigned char>> buf(k);
    std::vector<MPI_Request> req(k);
    for (int j = 0; j < k; ++j) {
        const int root = (j * 3 + 1) % size;
        buf[j].assign(sizes[j], 0xEE);
        if (rank == root)
            for (long i = 0; i < sizes[j]; ++i) buf[j][i] = bval(i, root, j);
        chk.ok(MPI_Ibcast(buf[j].data(), static_cast<int>(sizes[j]), MPI_BYTE, root, j % 2 ? dup : MPI_COMM_WORLD,
                          &req[j]),
               "ibcast");
    }
    chk.ok(MPI_Waitall(k, req.data(), MPI_STATUSES_IGNORE), "waitall");
    for (int j = 0; j < k; ++j) {
        const int root = (j * 3 + 1) % size;
        for (long i = 0; i < sizes[j]; ++i)
            if (!chk.eq(static_cast<int>(buf[j][i]), static_cast<int>(bval(i, root, j)), "ibcast in flight", i)) break;
    }
    const int count = 3000;  // vec3 elements: 9000 ints
    const int root = size - 1;
    std::vector<int> flat(count * 3, -1), strided(count * 5 + 5, -7);
    if (rank == root) {
        for (int i = 0; i < count * 3; ++i) flat[i] = mpitest::val(root, i);
        chk.ok(MPI_Bcast(flat.data(), count * 3, MPI_INT, root, dup), "bcast mixed types (root)");
    } else {
        chk.ok(MPI_Bcast(strided.data(), count, mpitest::types().vec3, root, dup), "bcast mixed types");
        for (int e = 0; e < count; ++e)
            for (int j = 0; j < 3; ++j)
                if (!chk.eq(strided[e * 5 + 2 * j], mpitest::val(root, e * 3 + j), "bcast mixed types", e)) break;
        chk.eq(strided[1], -7, "bcast mixed types: gap untouched");
    }
    MPI_Comm_free(&dup);
}

// Sub-communicators: each joins its own group (or has a single leader and none).
TEST_F(Offload, SplitCommunicators) {
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    allreduceSuite(chk, half);
    bcastSuite(chk, half);
    MPI_Comm_free(&half);
}

}  // namespace
