// Faults and resources: under coll_hieragg_max_temp_bytes a collective runs with
// less temporary memory, or, when no schedule fits, with the least it can (one
// warning says so); never an error the job did not cause, never an abort, never a
// hang. The CTest entries mpi.temp-limit (8 KiB, the k-nomial gather forced: the
// limit takes the direct gather) and mpi.temp-limit.tiny (16 bytes: nothing fits)
// run this; elsewhere no limit is set.

#include "harness.hpp"

using namespace mpitest;

namespace {

class Faults : public MpiTest {};

TEST_F(Faults, TempLimitRunsSmallerOrOverTheLimitNeverFails) {
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

    // A gather whose tree rows stage blocks at relaying ranks: the direct row stages
    // nothing and runs instead.
    const int k = 16 * 1024;
    std::vector<int> g(size > 1 || rank == 0 ? static_cast<size_t>(k) * size : 0, -1), mine(k);
    for (int i = 0; i < k; ++i) mine[i] = val(rank, i);
    if (chk.ok(MPI_Gather(mine.data(), k, MPI_INT, g.data(), k, MPI_INT, 0, c), "MPI_Gather under the limit") &&
        rank == 0)
        for (int p = 0; p < size; ++p)
            for (int i = 0; i < k; ++i)
                if (!chk.eq(g[static_cast<size_t>(p) * k + i], val(p, i), "gather", p * k + i)) break;

    // A non-commutative reduce_scatter_block: every schedule holds at least a pulse of a
    // partial block, so a 16-byte limit fits none; it runs over the limit, exact, in rank
    // order. The op composes affine maps x -> a x + b (associative, not commutative); an
    // element is a pair of unsigned ints (a contiguous type, so no pulse splits a pair).
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair);
    MPI_Type_commit(&pair);
    MPI_Op affine;
    MPI_Op_create(
        [](void* in, void* inout, int* len, MPI_Datatype*) {
            // (a1, b1) then (a2, b2): x -> a2 (a1 x + b1) + b2, on pairs of ints mod 2^32.
            auto* a = static_cast<unsigned*>(in);
            auto* b = static_cast<unsigned*>(inout);
            for (int i = 0; i < 2 * *len; i += 2) {
                const unsigned a2 = b[i], b2 = b[i + 1];
                b[i] = a2 * a[i];
                b[i + 1] = a2 * a[i + 1] + b2;
            }
        },
        0, &affine);
    const int block = 2 * 1024;  // unsigned ints: 1024 pairs per rank's block
    std::vector<unsigned> rs(static_cast<size_t>(block) * size), rr(block, 7);
    auto pairOf = [](int who, int i) { return std::pair<unsigned, unsigned>(3u + 2u * (who % 5), who * 11u + i); };
    for (int b = 0; b < size; ++b)
        for (int i = 0; i < block; i += 2) {
            const auto [pa, pb] = pairOf(rank, b * block + i);
            rs[static_cast<size_t>(b) * block + i] = pa;
            rs[static_cast<size_t>(b) * block + i + 1] = pb;
        }
    if (chk.ok(MPI_Reduce_scatter_block(rs.data(), rr.data(), block / 2, pair, affine, c),
               "MPI_Reduce_scatter_block (non-commutative) under the limit"))
        for (int i = 0; i < block; i += 2) {
            // Rank order: rank 0's map first, then rank 1's, ...
            unsigned ea = 1, eb = 0;
            for (int p = 0; p < size; ++p) {
                const auto [pa, pb] = pairOf(p, rank * block + i);
                ea = pa * ea;
                eb = pa * eb + pb;
            }
            if (!chk.eq(rr[i], ea, "reduce_scatter_block a", i) || !chk.eq(rr[i + 1], eb, "reduce_scatter_block b", i))
                break;
        }
    MPI_Op_free(&affine);
    MPI_Type_free(&pair);
    chk.ok(MPI_Barrier(c), "MPI_Barrier after the calls");
    MPI_Comm_free(&c);
}

}  // namespace
