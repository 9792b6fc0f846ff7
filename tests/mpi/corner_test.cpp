// MPI standard corner cases the other files do not reach: MPI_IN_PLACE for
// alltoallw; every collective on the size-1 communicators of a split by rank
// (and MPI_UNDEFINED ranks left out); a non-commutative op on a communicator
// whose rank order is a permutation of the world's (so hieragg's subspaces are
// not contiguous in it); ibarriers and iallreduces in flight on three
// communicators started in rank-dependent orders and completed in reverse;
// persistent requests freed (never started, or after use) while others are in
// flight; many dup/free cycles with bounded heap growth; MPI_ERRORS_RETURN with
// bad arguments followed by good calls.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>

#include <array>
#include <numeric>

#include "harness.hpp"

using namespace mpitest;

namespace {

class Corner : public MpiModeTest {};

// Alltoallw in place: rank r's block for peer p holds (p + r) % 3 + 1 ints, sent as
// MPI_INT at byte displacements in reverse peer order with a one-int gap.
TEST_P(Corner, AlltoallwInPlace) {
    const Mode m = GetParam();
    auto cnt = [](int a, int b) { return (a + b) % 3 + 1; };  // symmetric, as in place requires
    std::vector<int> c(size), d(size);
    std::vector<MPI_Datatype> t(size, MPI_INT);
    int off = 0;
    for (int p = size - 1; p >= 0; --p) c[p] = cnt(rank, p), d[p] = off * 4, off += c[p] + 1;
    std::vector<int> r(off + 1);
    run(chk, m,
        {"Alltoallw(in place)",
         [&] { return MPI_Alltoallw(MPI_IN_PLACE, nullptr, nullptr, nullptr, r.data(), c.data(), d.data(), t.data(), MPI_COMM_WORLD); },
         [&](MPI_Request* q) {
             return MPI_Ialltoallw(MPI_IN_PLACE, nullptr, nullptr, nullptr, r.data(), c.data(), d.data(), t.data(), MPI_COMM_WORLD, q);
         },
         [&](MPI_Request* q) {
             return MPIX_Alltoallw_init(MPI_IN_PLACE, nullptr, nullptr, nullptr, r.data(), c.data(), d.data(), t.data(),
                                        MPI_COMM_WORLD, MPI_INFO_NULL, q);
         }},
        [&] {
            std::fill(r.begin(), r.end(), -7);
            for (int p = 0; p < size; ++p)
                for (int i = 0; i < c[p]; ++i) r[d[p] / 4 + i] = val(rank, p * 10 + i);
        },
        [&] {
            std::vector<int> exp(off + 1, -7);
            for (int p = 0; p < size; ++p)
                for (int i = 0; i < c[p]; ++i) exp[d[p] / 4 + i] = val(p, rank * 10 + i);
            for (int j = 0; j <= off; ++j) chk.eq(r[j], exp[j], "alltoallw in place", j);
        });
}

// Every collective on a communicator of one process (split by rank); ranks with
// color MPI_UNDEFINED (the last one, when there are 3 or more) get MPI_COMM_NULL.
TEST_P(Corner, SingletonSplit) {
    const Mode m = GetParam();
    const bool left_out = size >= 3 && rank == size - 1;
    MPI_Comm c = MPI_COMM_NULL;
    if (!chk.ok(MPI_Comm_split(MPI_COMM_WORLD, left_out ? MPI_UNDEFINED : rank, 0, &c), "MPI_Comm_split")) return;
    if (left_out) {
        chk.truth(c == MPI_COMM_NULL, "MPI_UNDEFINED color did not give MPI_COMM_NULL");
        return;
    }
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    const int n = 7;
    std::vector<int> s(n), r(n + 1), one{n}, zero{0};
    auto prep = [&] {
        for (int i = 0; i < n; ++i) s[i] = val(rank, i);
        std::fill(r.begin(), r.end(), -1);
    };
    auto copied = [&](const char* what) {
        return [&, what] {
            for (int i = 0; i < n; ++i) chk.eq(r[i], val(rank, i), what, i);
            chk.eq(r[n], -1, std::string(what) + " wrote past count", n);
        };
    };
    auto inplace = [&] {
        for (int i = 0; i < n; ++i) r[i] = val(rank, i);
        r[n] = -1;
    };
    std::array<MPI_Datatype, 1> ty{MPI_INT};
    run(chk, m,
        {"self Bcast", [&] { return MPI_Bcast(r.data(), n, MPI_INT, 0, c); },
         [&](MPI_Request* q) { return MPI_Ibcast(r.data(), n, MPI_INT, 0, c, q); },
         [&](MPI_Request* q) { return MPIX_Bcast_init(r.data(), n, MPI_INT, 0, c, MPI_INFO_NULL, q); }},
        inplace, copied("self bcast"));
    run(chk, m,
        {"self Reduce", [&] { return MPI_Reduce(s.data(), r.data(), n, MPI_INT, MPI_SUM, 0, c); },
         [&](MPI_Request* q) { return MPI_Ireduce(s.data(), r.data(), n, MPI_INT, MPI_SUM, 0, c, q); },
         [&](MPI_Request* q) { return MPIX_Reduce_init(s.data(), r.data(), n, MPI_INT, MPI_SUM, 0, c, MPI_INFO_NULL, q); }},
        prep, copied("self reduce"));
    run(chk, m,
        {"self Allreduce(in place)", [&] { return MPI_Allreduce(MPI_IN_PLACE, r.data(), n, MPI_INT, MPI_PROD, c); },
         [&](MPI_Request* q) { return MPI_Iallreduce(MPI_IN_PLACE, r.data(), n, MPI_INT, MPI_PROD, c, q); },
         [&](MPI_Request* q) {
             return MPIX_Allreduce_init(MPI_IN_PLACE, r.data(), n, MPI_INT, MPI_PROD, c, MPI_INFO_NULL, q);
         }},
        inplace, copied("self allreduce in place"));
    run(chk, m,
        {"self Gatherv", [&] { return MPI_Gatherv(s.data(), n, MPI_INT, r.data(), one.data(), zero.data(), MPI_INT, 0, c); },
         [&](MPI_Request* q) { return MPI_Igatherv(s.data(), n, MPI_INT, r.data(), one.data(), zero.data(), MPI_INT, 0, c, q); },
         [&](MPI_Request* q) {
             return MPIX_Gatherv_init(s.data(), n, MPI_INT, r.data(), one.data(), zero.data(), MPI_INT, 0, c, MPI_INFO_NULL, q);
         }},
        prep, copied("self gatherv"));
    run(chk, m,
        {"self Scatter", [&] { return MPI_Scatter(s.data(), n, MPI_INT, r.data(), n, MPI_INT, 0, c); },
         [&](MPI_Request* q) { return MPI_Iscatter(s.data(), n, MPI_INT, r.data(), n, MPI_INT, 0, c, q); },
         [&](MPI_Request* q) { return MPIX_Scatter_init(s.data(), n, MPI_INT, r.data(), n, MPI_INT, 0, c, MPI_INFO_NULL, q); }},
        prep, copied("self scatter"));
    run(chk, m,
        {"self Scatterv(in place)",
         [&] { return MPI_Scatterv(r.data(), one.data(), zero.data(), MPI_INT, MPI_IN_PLACE, n, MPI_INT, 0, c); },
         [&](MPI_Request* q) {
             return MPI_Iscatterv(r.data(), one.data(), zero.data(), MPI_INT, MPI_IN_PLACE, n, MPI_INT, 0, c, q);
         },
         [&](MPI_Request* q) {
             return MPIX_Scatterv_init(r.data(), one.data(), zero.data(), MPI_INT, MPI_IN_PLACE, n, MPI_INT, 0, c,
                                       MPI_INFO_NULL, q);
         }},
        inplace, copied("self scatterv in place"));
    run(chk, m,
        {"self Allgatherv(in place)",
         [&] { return MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r.data(), one.data(), zero.data(), MPI_INT, c); },
         [&](MPI_Request* q) {
             return MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r.data(), one.data(), zero.data(), MPI_INT, c, q);
         },
         [&](MPI_Request* q) {
             return MPIX_Allgatherv_init(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r.data(), one.data(), zero.data(), MPI_INT, c,
                                         MPI_INFO_NULL, q);
         }},
        inplace, copied("self allgatherv in place"));
    run(chk, m,
        {"self Alltoallv", [&] { return MPI_Alltoallv(s.data(), one.data(), zero.data(), MPI_INT, r.data(), one.data(), zero.data(), MPI_INT, c); },
         [&](MPI_Request* q) {
             return MPI_Ialltoallv(s.data(), one.data(), zero.data(), MPI_INT, r.data(), one.data(), zero.data(), MPI_INT, c, q);
         },
         [&](MPI_Request* q) {
             return MPIX_Alltoallv_init(s.data(), one.data(), zero.data(), MPI_INT, r.data(), one.data(), zero.data(), MPI_INT,
                                        c, MPI_INFO_NULL, q);
         }},
        prep, copied("self alltoallv"));
    run(chk, m,
        {"self Alltoallw(in place)",
         [&] { return MPI_Alltoallw(MPI_IN_PLACE, nullptr, nullptr, nullptr, r.data(), one.data(), zero.data(), ty.data(), c); },
         [&](MPI_Request* q) {
             return MPI_Ialltoallw(MPI_IN_PLACE, nullptr, nullptr, nullptr, r.data(), one.data(), zero.data(), ty.data(), c, q);
         },
         [&](MPI_Request* q) {
             return MPIX_Alltoallw_init(MPI_IN_PLACE, nullptr, nullptr, nullptr, r.data(), one.data(), zero.data(), ty.data(),
                                        c, MPI_INFO_NULL, q);
         }},
        inplace, copied("self alltoallw in place"));
    run(chk, m,
        {"self Reduce_scatter(in place)",
         [&] { return MPI_Reduce_scatter(MPI_IN_PLACE, r.data(), one.data(), MPI_INT, MPI_MAX, c); },
         [&](MPI_Request* q) { return MPI_Ireduce_scatter(MPI_IN_PLACE, r.data(), one.data(), MPI_INT, MPI_MAX, c, q); },
         [&](MPI_Request* q) {
             return MPIX_Reduce_scatter_init(MPI_IN_PLACE, r.data(), one.data(), MPI_INT, MPI_MAX, c, MPI_INFO_NULL, q);
         }},
        inplace, copied("self reduce_scatter in place"));
    run(chk, m,
        {"self Scan(in place)", [&] { return MPI_Scan(MPI_IN_PLACE, r.data(), n, MPI_INT, MPI_MIN, c); },
         [&](MPI_Request* q) { return MPI_Iscan(MPI_IN_PLACE, r.data(), n, MPI_INT, MPI_MIN, c, q); },
         [&](MPI_Request* q) { return MPIX_Scan_init(MPI_IN_PLACE, r.data(), n, MPI_INT, MPI_MIN, c, MPI_INFO_NULL, q); }},
        inplace, copied("self scan in place"));
    // Exscan on one process: the result is undefined, but nothing past count may change
    // and the call must succeed.
    run(chk, m,
        {"self Exscan", [&] { return MPI_Exscan(s.data(), r.data(), n, MPI_INT, MPI_SUM, c); },
         [&](MPI_Request* q) { return MPI_Iexscan(s.data(), r.data(), n, MPI_INT, MPI_SUM, c, q); },
         [&](MPI_Request* q) { return MPIX_Exscan_init(s.data(), r.data(), n, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, q); }},
        prep, [&] { chk.eq(r[n], -1, "self exscan wrote past count", n); });
    run(chk, m,
        {"self Barrier", [&] { return MPI_Barrier(c); }, [&](MPI_Request* q) { return MPI_Ibarrier(c, q); },
         [&](MPI_Request* q) { return MPIX_Barrier_init(c, MPI_INFO_NULL, q); }},
        [] {}, [] {});
    MPI_Comm_free(&c);
}

// ---- non-commutative op on a permuted communicator ----
// An affine map x -> a x + b on unsigned (mod 2^32); (u op v) applies u first, then v:
// (v.a u.a, v.a u.b + v.b). Not commutative, associative.
struct Affine {
    unsigned a, b;
};
Affine then(const Affine& u, const Affine& v) { return {v.a * u.a, v.a * u.b + v.b}; }
void affineOp(void* in, void* inout, int* len, MPI_Datatype*) {
    auto* x = static_cast<Affine*>(in);
    auto* y = static_cast<Affine*>(inout);
    for (int k = 0; k < *len; ++k) y[k] = then(x[k], y[k]);
}
Affine affine(int world, long i) { return {2u * unsigned(world) + 3u + unsigned(i), unsigned(val(world, i))}; }
bool same(const Affine& x, const Affine& y) { return x.a == y.a && x.b == y.b; }

// The communicator's rank j is world rank perm[j] = (3 j + 1) mod size (a permutation
// when 3 does not divide size; otherwise reversed order), so under virtual:N and
// roundrobin:N splits hieragg's subspaces are not contiguous in it: results must follow
// the communicator's rank order.
TEST_P(Corner, NonCommutativePermutedComm) {
    const Mode m = GetParam();
    std::vector<int> perm(size);
    for (int j = 0; j < size; ++j) perm[j] = size % 3 ? (3 * j + 1) % size : size - 1 - j;
    int key = 0;
    for (int j = 0; j < size; ++j)
        if (perm[j] == rank) key = j;
    MPI_Comm c = MPI_COMM_NULL;
    if (!chk.ok(MPI_Comm_split(MPI_COMM_WORLD, 0, key, &c), "MPI_Comm_split")) return;
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int me = -1;
    MPI_Comm_rank(c, &me);
    chk.eq(me, key, "rank in permuted communicator");
    MPI_Op op;
    MPI_Op_create(affineOp, 0, &op);
    MPI_Datatype at;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &at);
    MPI_Type_commit(&at);
    const int n = 9;
    std::vector<Affine> s(n * size), r(n * size + 1);
    auto fold = [&](int from, int to, long i) {  // comm ranks from..to-1, in order
        Affine acc{1, 0};
        for (int j = from; j < to; ++j) acc = then(acc, affine(perm[j], i));
        return acc;
    };
    auto prep = [&] {
        for (int i = 0; i < n * size; ++i) s[i] = affine(rank, i);
        std::fill(r.begin(), r.end(), Affine{7, 7});
    };
    auto check = [&](const char* what, int from, int to, long base) {
        for (int i = 0; i < n; ++i)
            chk.truth(same(r[i], fold(from, to, base + i)), std::string(what) + " [" + std::to_string(i) + "] not in rank order");
        chk.truth(same(r[n], Affine{7, 7}), std::string(what) + " wrote past count");
    };
    const int root = size - 1;
    run(chk, m,
        {"Reduce(affine, permuted)", [&] { return MPI_Reduce(s.data(), r.data(), n, at, op, root, c); },
         [&](MPI_Request* q) { return MPI_Ireduce(s.data(), r.data(), n, at, op, root, c, q); },
         [&](MPI_Request* q) { return MPIX_Reduce_init(s.data(), r.data(), n, at, op, root, c, MPI_INFO_NULL, q); }},
        prep, [&] {
            if (me == root) check("reduce", 0, size, 0);
        });
    run(chk, m,
        {"Allreduce(affine, permuted)", [&] { return MPI_Allreduce(s.data(), r.data(), n, at, op, c); },
         [&](MPI_Request* q) { return MPI_Iallreduce(s.data(), r.data(), n, at, op, c, q); },
         [&](MPI_Request* q) { return MPIX_Allreduce_init(s.data(), r.data(), n, at, op, c, MPI_INFO_NULL, q); }},
        prep, [&] { check("allreduce", 0, size, 0); });
    run(chk, m,
        {"Scan(affine, permuted)", [&] { return MPI_Scan(s.data(), r.data(), n, at, op, c); },
         [&](MPI_Request* q) { return MPI_Iscan(s.data(), r.data(), n, at, op, c, q); },
         [&](MPI_Request* q) { return MPIX_Scan_init(s.data(), r.data(), n, at, op, c, MPI_INFO_NULL, q); }},
        prep, [&] { check("scan", 0, me + 1, 0); });
    run(chk, m,
        {"Exscan(affine, permuted)", [&] { return MPI_Exscan(s.data(), r.data(), n, at, op, c); },
         [&](MPI_Request* q) { return MPI_Iexscan(s.data(), r.data(), n, at, op, c, q); },
         [&](MPI_Request* q) { return MPIX_Exscan_init(s.data(), r.data(), n, at, op, c, MPI_INFO_NULL, q); }},
        prep, [&] {
            if (me > 0) check("exscan", 0, me, 0);
        });
    std::vector<int> counts(size);
    for (int j = 0; j < size; ++j) counts[j] = n;
    run(chk, m,
        {"Reduce_scatter(affine, permuted)", [&] { return MPI_Reduce_scatter(s.data(), r.data(), counts.data(), at, op, c); },
         [&](MPI_Request* q) { return MPI_Ireduce_scatter(s.data(), r.data(), counts.data(), at, op, c, q); },
         [&](MPI_Request* q) {
             return MPIX_Reduce_scatter_init(s.data(), r.data(), counts.data(), at, op, c, MPI_INFO_NULL, q);
         }},
        prep, [&] { check("reduce_scatter", 0, size, long(me) * n); });
    MPI_Type_free(&at);
    MPI_Op_free(&op);
    MPI_Comm_free(&c);
}

// The affine op on whatever the datatype holds: len elements of MPI_Type_size bytes
// (none for a type of size 0: the op must not write there).
void sizedAffineOp(void* in, void* inout, int* len, MPI_Datatype* dt) {
    int bytes = 0;
    MPI_Type_size(*dt, &bytes);
    int n = int(long(*len) * bytes / long(sizeof(Affine)));
    affineOp(in, inout, &n, dt);
}

// A committed type of size 0 (MPI_Type_contiguous(0, MPI_INT)) with count 5, and
// MPI_INT with count 0 beside it: nothing moves, every call succeeds and no byte of the
// buffers changes (a schedule must not divide by the type's size or stage anything).
// (Not reduce_scatter_block: Open MPI 4.1's own recursive-halving one frees an invalid
// pointer on a zero-size type, so the test could not pass on Open MPI's stack.)
TEST_P(Corner, ZeroSizeType) {
    const Mode m = GetParam();
    MPI_Datatype z;
    MPI_Type_contiguous(0, MPI_INT, &z);
    MPI_Type_commit(&z);
    MPI_Op op;
    MPI_Op_create(sizedAffineOp, 1, &op);
    std::vector<int> s(8, 5), r(8 * size, -1), cnt(size, 5), dis(size, 0);
    std::vector<MPI_Datatype> zt(size, z);
    auto prep = [&] { std::fill(r.begin(), r.end(), -1); };
    auto untouched = [&](const char* what) {
        return [&, what] {
            for (size_t i = 0; i < r.size(); ++i) chk.eq(r[i], -1, what, long(i));
        };
    };
    const int root = size / 2;
    std::vector<std::pair<Coll, const char*>> calls = {
        {{"Bcast(zero-size)", [&] { return MPI_Bcast(r.data(), 5, z, root, MPI_COMM_WORLD); },
          [&](MPI_Request* q) { return MPI_Ibcast(r.data(), 5, z, root, MPI_COMM_WORLD, q); },
          [&](MPI_Request* q) { return MPIX_Bcast_init(r.data(), 5, z, root, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
         "bcast zero-size"},
        {{"Allreduce(zero-size)", [&] { return MPI_Allreduce(s.data(), r.data(), 5, z, op, MPI_COMM_WORLD); },
          [&](MPI_Request* q) { return MPI_Iallreduce(s.data(), r.data(), 5, z, op, MPI_COMM_WORLD, q); },
          [&](MPI_Request* q) { return MPIX_Allreduce_init(s.data(), r.data(), 5, z, op, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
         "allreduce zero-size"},
        {{"Reduce(zero-size)", [&] { return MPI_Reduce(s.data(), r.data(), 5, z, op, root, MPI_COMM_WORLD); },
          [&](MPI_Request* q) { return MPI_Ireduce(s.data(), r.data(), 5, z, op, root, MPI_COMM_WORLD, q); },
          [&](MPI_Request* q) { return MPIX_Reduce_init(s.data(), r.data(), 5, z, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
         "reduce zero-size"},
        {{"Allgather(zero-size)", [&] { return MPI_Allgather(s.data(), 5, z, r.data(), 5, z, MPI_COMM_WORLD); },
          [&](MPI_Request* q) { return MPI_Iallgather(s.data(), 5, z, r.data(), 5, z, MPI_COMM_WORLD, q); },
          [&](MPI_Request* q) { return MPIX_Allgather_init(s.data(), 5, z, r.data(), 5, z, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
         "allgather zero-size"},
        {{"Gatherv(zero-size)",
          [&] { return MPI_Gatherv(s.data(), 5, z, r.data(), cnt.data(), dis.data(), z, root, MPI_COMM_WORLD); },
          [&](MPI_Request* q) { return MPI_Igatherv(s.data(), 5, z, r.data(), cnt.data(), dis.data(), z, root, MPI_COMM_WORLD, q); },
          [&](MPI_Request* q) {
              return MPIX_Gatherv_init(s.data(), 5, z, r.data(), cnt.data(), dis.data(), z, root, MPI_COMM_WORLD, MPI_INFO_NULL, q);
          }},
         "gatherv zero-size"},
        {{"Scatter(zero-size)", [&] { return MPI_Scatter(s.data(), 5, z, r.data(), 5, z, root, MPI_COMM_WORLD); },
          [&](MPI_Request* q) { return MPI_Iscatter(s.data(), 5, z, r.data(), 5, z, root, MPI_COMM_WORLD, q); },
          [&](MPI_Request* q) { return MPIX_Scatter_init(s.data(), 5, z, r.data(), 5, z, root, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
         "scatter zero-size"},
        {{"Alltoall(zero-size)", [&] { return MPI_Alltoall(s.data(), 5, z, r.data(), 5, z, MPI_COMM_WORLD); },
          [&](MPI_Request* q) { return MPI_Ialltoall(s.data(), 5, z, r.data(), 5, z, MPI_COMM_WORLD, q); },
          [&](MPI_Request* q) { return MPIX_Alltoall_init(s.data(), 5, z, r.data(), 5, z, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
         "alltoall zero-size"},
        {{"Alltoallw(zero-size)",
          [&] { return MPI_Alltoallw(s.data(), cnt.data(), dis.data(), zt.data(), r.data(), cnt.data(), dis.data(), zt.data(), MPI_COMM_WORLD); },
          [&](MPI_Request* q) {
              return MPI_Ialltoallw(s.data(), cnt.data(), dis.data(), zt.data(), r.data(), cnt.data(), dis.data(), zt.data(), MPI_COMM_WORLD, q);
          },
          [&](MPI_Request* q) {
              return MPIX_Alltoallw_init(s.data(), cnt.data(), dis.data(), zt.data(), r.data(), cnt.data(), dis.data(), zt.data(),
                                         MPI_COMM_WORLD, MPI_INFO_NULL, q);
          }},
         "alltoallw zero-size"},
        {{"Scan(zero-size)", [&] { return MPI_Scan(s.data(), r.data(), 5, z, op, MPI_COMM_WORLD); },
          [&](MPI_Request* q) { return MPI_Iscan(s.data(), r.data(), 5, z, op, MPI_COMM_WORLD, q); },
          [&](MPI_Request* q) { return MPIX_Scan_init(s.data(), r.data(), 5, z, op, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
         "scan zero-size"},
        {{"Exscan(zero-size)", [&] { return MPI_Exscan(s.data(), r.data(), 5, z, op, MPI_COMM_WORLD); },
          [&](MPI_Request* q) { return MPI_Iexscan(s.data(), r.data(), 5, z, op, MPI_COMM_WORLD, q); },
          [&](MPI_Request* q) { return MPIX_Exscan_init(s.data(), r.data(), 5, z, op, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
         "exscan zero-size"},
    };
    for (auto& [c, what] : calls) run(chk, m, c, prep, untouched(what));
    MPI_Op_free(&op);
    MPI_Type_free(&z);
}

INSTANTIATE_TEST_SUITE_P(M, Corner, ::testing::Values(Mode::Blocking, Mode::Nonblocking, Mode::Persistent),
                         modeParamName);

class CornerF : public MpiTest {};

// Three communicators; each rank starts an ibarrier and an iallreduce on each, in an
// order that depends on its rank (legal: the order only has to agree per communicator),
// plus a persistent allreduce on the first; completes them in reverse with MPI_Waitany.
// Two more persistent requests on the first communicator are freed while the rest are in
// flight: one never started, one after a completed start.
TEST_F(CornerF, OverlappingAcrossComms) {
    constexpr int K = 3;
    std::array<MPI_Comm, K> c{};
    for (auto& x : c) {
        MPI_Comm_dup(MPI_COMM_WORLD, &x);
        MPI_Comm_set_errhandler(x, MPI_ERRORS_RETURN);
    }
    const int n = 33;
    for (int round = 0; round < 3; ++round) {
        std::array<std::vector<int>, K> s, r;
        std::vector<int> ps(n), pr(n, -1), us(n), ur(n, -1);
        for (int k = 0; k < K; ++k) {
            s[k].resize(n), r[k].assign(n, -1);
            for (int i = 0; i < n; ++i) s[k][i] = val(rank, i + 100 * k + round);
        }
        for (int i = 0; i < n; ++i) ps[i] = val(rank, i + 7 * round), us[i] = val(rank, i);
        MPI_Request never = MPI_REQUEST_NULL, used = MPI_REQUEST_NULL, pers = MPI_REQUEST_NULL;
        // Inits are collective on c[0], in the same order on every rank.
        chk.ok(MPIX_Allreduce_init(us.data(), ur.data(), n, MPI_INT, MPI_SUM, c[0], MPI_INFO_NULL, &used), "init used");
        chk.ok(MPIX_Barrier_init(c[0], MPI_INFO_NULL, &never), "init never");
        chk.ok(MPIX_Allreduce_init(ps.data(), pr.data(), n, MPI_INT, MPI_SUM, c[0], MPI_INFO_NULL, &pers), "init pers");
        chk.ok(MPI_Start(&used), "start used");
        chk.ok(MPI_Wait(&used, MPI_STATUS_IGNORE), "wait used");
        for (int i = 0; i < n; ++i) {
            long e = 0;
            for (int q = 0; q < size; ++q) e += val(q, i);
            chk.eq(ur[i], e, "persistent allreduce before free", i);
        }
        std::vector<MPI_Request> q(2 * K + 1, MPI_REQUEST_NULL);
        for (int j = 0; j < K; ++j) {
            const int k = (rank + j + round) % K;
            chk.ok(MPI_Ibarrier(c[k], &q[2 * k]), "ibarrier");
            chk.ok(MPI_Iallreduce(s[k].data(), r[k].data(), n, MPI_INT, MPI_SUM, c[k], &q[2 * k + 1]), "iallreduce");
            if (k == 0) chk.ok(MPI_Start(&pers), "start pers");
        }
        q[2 * K] = pers;
        chk.ok(MPI_Request_free(&never), "free never-started");
        chk.ok(MPI_Request_free(&used), "free used");
        for (int left = 2 * K + 1; left > 0; --left) {
            int idx = MPI_UNDEFINED;
            chk.ok(MPI_Waitany(int(q.size()), q.data(), &idx, MPI_STATUS_IGNORE), "waitany");
            if (idx == MPI_UNDEFINED) break;
        }
        for (int k = 0; k < K; ++k)
            for (int i = 0; i < n; ++i) {
                long e = 0;
                for (int p = 0; p < size; ++p) e += val(p, i + 100 * k + round);
                chk.eq(r[k][i], e, "iallreduce comm " + std::to_string(k), i);
            }
        for (int i = 0; i < n; ++i) {
            long e = 0;
            for (int p = 0; p < size; ++p) e += val(p, i + 7 * round);
            chk.eq(pr[i], e, "persistent allreduce", i);
        }
        MPI_Request_free(&pers);
    }
    for (auto& x : c) MPI_Comm_free(&x);
}

// Dup + collective + free, 80 times: the heap in use after the last 40 cycles must not
// exceed that after the first 40 by more than 128 KiB (per-communicator state released
// at free, plan caches bounded).
TEST_F(CornerF, DupFreeHeapBounded) {
    auto cycle = [&](int it) {
        MPI_Comm d = MPI_COMM_NULL;
        if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &d), "MPI_Comm_dup")) return;
        MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
        int v = val(rank, it), sum = -1;
        // a different count each time, so call caches see new keys
        std::vector<int> s(1 + it % 5, v), r(1 + it % 5, -1);
        chk.ok(MPI_Allreduce(s.data(), r.data(), int(s.size()), MPI_INT, MPI_SUM, d), "allreduce on dup");
        sum = r[0];
        long e = 0;
        for (int q = 0; q < size; ++q) e += val(q, it);
        chk.eq(sum, e, "allreduce on dup#" + std::to_string(it));
        MPI_Request q = MPI_REQUEST_NULL;
        chk.ok(MPI_Ibarrier(d, &q), "ibarrier on dup");
        chk.ok(MPI_Wait(&q, MPI_STATUS_IGNORE), "wait");
        MPI_Comm_free(&d);
    };
    for (int it = 0; it < 40; ++it) cycle(it);
    const size_t before = mallinfo2().uordblks;
    for (int it = 40; it < 80; ++it) cycle(it);
    const size_t after = mallinfo2().uordblks;
    chk.truth(after <= before + 128 * 1024,
              "heap grew by " + std::to_string(long(after) - long(before)) + " bytes over 40 dup/free cycles");
    if (getenv("HIERAGG_TEST_SHOW_HEAP"))
        printf("rank %d: heap %+ld bytes over 40 dup/free cycles\n", rank, long(after) - long(before));
}

// Bad arguments under MPI_ERRORS_RETURN: an error code comes back (no abort), and the
// communicator still works afterwards.
TEST_F(CornerF, ErrorsReturnBadArguments) {
    MPI_Comm d = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    int buf[4] = {1, 2, 3, 4}, out[4] = {0, 0, 0, 0};
    MPI_Request q = MPI_REQUEST_NULL;
    chk.truth(MPI_Bcast(buf, 4, MPI_INT, size, d) != MPI_SUCCESS, "bcast with root = size succeeded");
    chk.truth(MPI_Ibcast(buf, 4, MPI_INT, -5, d, &q) != MPI_SUCCESS, "ibcast with root -5 succeeded");
    chk.truth(MPI_Allreduce(buf, out, -1, MPI_INT, MPI_SUM, d) != MPI_SUCCESS, "allreduce with count -1 succeeded");
    chk.truth(MPI_Allreduce(buf, out, 4, MPI_INT, MPI_OP_NULL, d) != MPI_SUCCESS, "allreduce with MPI_OP_NULL succeeded");
    chk.truth(MPI_Reduce(buf, out, 4, MPI_DATATYPE_NULL, MPI_SUM, 0, d) != MPI_SUCCESS,
              "reduce with MPI_DATATYPE_NULL succeeded");
    chk.truth(MPI_Iallreduce(buf, buf, 4, MPI_INT, MPI_SUM, d, &q) != MPI_SUCCESS,
              "iallreduce with aliased buffers succeeded");
    chk.truth(q == MPI_REQUEST_NULL, "a failed start left a request");
    // the communicator still works
    std::fill(out, out + 4, -1);
    if (chk.ok(MPI_Allreduce(buf, out, 4, MPI_INT, MPI_SUM, d), "allreduce after errors"))
        for (int i = 0; i < 4; ++i) chk.eq(out[i], (i + 1) * size, "allreduce after errors", i);
    MPI_Comm_free(&d);
}

}  // namespace
