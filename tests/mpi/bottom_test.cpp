// MPI_BOTTOM buffers: datatypes whose displacements are absolute addresses (from
// MPI_Get_address), so the data lies in separate arrays the buffer argument does
// not point into. Every collective must pass MPI_BOTTOM through to the datatype
// engine (packing, unpacking, reducing) without offsetting or copying it as a
// plain pointer. Sending and receiving sides, in place, rooted and not, the
// per-peer types of alltoallw, and a user op that reads the struct through the
// same displacements.
#include <array>

#include "harness.hpp"

using namespace mpitest;

namespace {

class Bottom : public MpiModeTest {};

// A datatype of `n` ints at `p`, by absolute address (use with MPI_BOTTOM).
MPI_Datatype absoluteInts(const int* p, int n) {
    MPI_Aint a;
    MPI_Get_address(p, &a);
    MPI_Datatype t;
    MPI_Type_create_hindexed(1, &n, &a, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

// Displacements of the struct the user op reduces (set before each call; per process).
std::array<MPI_Aint, 2> g_disp;

// Sums {2 ints at disp[0], 1 int at disp[1]} element by element, reading the
// buffers through the datatype's own displacements, as the standard defines it.
void structSum(void* in, void* inout, int* len, MPI_Datatype* dt) {
    MPI_Aint lb, ext;
    MPI_Type_get_extent(*dt, &lb, &ext);
    for (int k = 0; k < *len; ++k) {
        char* a = static_cast<char*>(in) + k * ext;
        char* b = static_cast<char*>(inout) + k * ext;
        int* a0 = reinterpret_cast<int*>(a + g_disp[0]);
        int* b0 = reinterpret_cast<int*>(b + g_disp[0]);
        int* a1 = reinterpret_cast<int*>(a + g_disp[1]);
        int* b1 = reinterpret_cast<int*>(b + g_disp[1]);
        b0[0] += a0[0];
        b0[1] += a0[1];
        b1[0] += a1[0];
    }
}

// Bcast of {3 ints in one array, 2 doubles in another} from MPI_BOTTOM, root size - 1.
TEST_P(Bottom, BcastStructOfTwoArrays) {
    const Mode m = GetParam();
    std::vector<int> ints(3 + 1);
    std::vector<double> dbls(2 + 1);
    MPI_Aint disp[2];
    MPI_Get_address(ints.data(), &disp[0]);
    MPI_Get_address(dbls.data(), &disp[1]);
    int bl[2] = {3, 2};
    MPI_Datatype tys[2] = {MPI_INT, MPI_DOUBLE}, st;
    MPI_Type_create_struct(2, bl, disp, tys, &st);
    MPI_Type_commit(&st);
    const int root = size - 1;
    run(chk, m,
        {"Bcast", [&] { return MPI_Bcast(MPI_BOTTOM, 1, st, root, MPI_COMM_WORLD); },
         [&](MPI_Request* q) { return MPI_Ibcast(MPI_BOTTOM, 1, st, root, MPI_COMM_WORLD, q); },
         [&](MPI_Request* q) { return MPIX_Bcast_init(MPI_BOTTOM, 1, st, root, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
        [&] {
            for (int i = 0; i < 4; ++i) ints[i] = rank == root && i < 3 ? val(root, i) : -1;
            for (int i = 0; i < 3; ++i) dbls[i] = rank == root && i < 2 ? 0.5 + i : -1.0;
        },
        [&] {
            for (int i = 0; i < 3; ++i) chk.eq(ints[i], val(root, i), "bcast bottom int", i);
            for (int i = 0; i < 2; ++i) chk.eq(dbls[i], 0.5 + i, "bcast bottom double", i);
            chk.eq(ints[3], -1, "bcast bottom wrote past the ints");
            chk.eq(dbls[2], -1.0, "bcast bottom wrote past the doubles");
        });
    MPI_Type_free(&st);
}

// Gather (every root) and allgather whose send side is MPI_BOTTOM.
TEST_P(Bottom, GatherAndAllgatherSendFromBottom) {
    const Mode m = GetParam();
    std::array<int, 2> mine{};
    MPI_Datatype sabs = absoluteInts(mine.data(), 2);
    std::vector<int> r(2 * size + 1);
    auto prepare = [&] {
        mine = {val(rank, 0), val(rank, 1)};
        std::fill(r.begin(), r.end(), -7);
    };
    for (int root : {0, size - 1}) {
        run(chk, m,
            {"Gather", [&] { return MPI_Gather(MPI_BOTTOM, 1, sabs, r.data(), 2, MPI_INT, root, MPI_COMM_WORLD); },
             [&](MPI_Request* q) {
                 return MPI_Igather(MPI_BOTTOM, 1, sabs, r.data(), 2, MPI_INT, root, MPI_COMM_WORLD, q);
             },
             [&](MPI_Request* q) {
                 return MPIX_Gather_init(MPI_BOTTOM, 1, sabs, r.data(), 2, MPI_INT, root, MPI_COMM_WORLD,
                                         MPI_INFO_NULL, q);
             }},
            prepare, [&] {
                if (rank != root) return;
                for (int q = 0; q < size; ++q)
                    for (int i = 0; i < 2; ++i) chk.eq(r[2 * q + i], val(q, i), "gather from bottom", 2 * q + i);
                chk.eq(r[2 * size], -7, "gather from bottom wrote past the blocks");
            });
    }
    run(chk, m,
        {"Allgather", [&] { return MPI_Allgather(MPI_BOTTOM, 1, sabs, r.data(), 2, MPI_INT, MPI_COMM_WORLD); },
         [&](MPI_Request* q) {
             return MPI_Iallgather(MPI_BOTTOM, 1, sabs, r.data(), 2, MPI_INT, MPI_COMM_WORLD, q);
         },
         [&](MPI_Request* q) {
             return MPIX_Allgather_init(MPI_BOTTOM, 1, sabs, r.data(), 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, q);
         }},
        prepare, [&] {
            for (int q = 0; q < size; ++q)
                for (int i = 0; i < 2; ++i) chk.eq(r[2 * q + i], val(q, i), "allgather from bottom", 2 * q + i);
        });
    MPI_Type_free(&sabs);
}

// Alltoallw with both buffers MPI_BOTTOM: one absolute type per peer and side.
TEST_P(Bottom, AlltoallwPerPeerAbsoluteTypes) {
    const Mode m = GetParam();
    std::vector<int> s(2 * size), r(2 * size), counts(size, 1), zero(size, 0);
    std::vector<MPI_Datatype> st(size), rt(size);
    for (int q = 0; q < size; ++q) {
        st[q] = absoluteInts(&s[2 * q], 2);
        rt[q] = absoluteInts(&r[2 * q], 2);
    }
    run(chk, m,
        {"Alltoallw",
         [&] {
             return MPI_Alltoallw(MPI_BOTTOM, counts.data(), zero.data(), st.data(), MPI_BOTTOM, counts.data(),
                                  zero.data(), rt.data(), MPI_COMM_WORLD);
         },
         [&](MPI_Request* q) {
             return MPI_Ialltoallw(MPI_BOTTOM, counts.data(), zero.data(), st.data(), MPI_BOTTOM, counts.data(),
                                   zero.data(), rt.data(), MPI_COMM_WORLD, q);
         },
         [&](MPI_Request* q) {
             return MPIX_Alltoallw_init(MPI_BOTTOM, counts.data(), zero.data(), st.data(), MPI_BOTTOM,
                                        counts.data(), zero.data(), rt.data(), MPI_COMM_WORLD, MPI_INFO_NULL, q);
         }},
        [&] {
            for (int q = 0; q < size; ++q) {
                s[2 * q] = val(rank, q);
                s[2 * q + 1] = -val(rank, q);
            }
            std::fill(r.begin(), r.end(), -7);
        },
        [&] {
            for (int q = 0; q < size; ++q) {
                chk.eq(r[2 * q], val(q, rank), "alltoallw bottom", 2 * q);
                chk.eq(r[2 * q + 1], -val(q, rank), "alltoallw bottom", 2 * q + 1);
            }
        });
    for (int q = 0; q < size; ++q) {
        MPI_Type_free(&st[q]);
        MPI_Type_free(&rt[q]);
    }
}

// Allreduce in place at MPI_BOTTOM, and reduce with the root in place there and the
// others sending from it, with a user op over a struct of two separate arrays.
TEST_P(Bottom, ReductionsInPlaceWithUserOp) {
    const Mode m = GetParam();
    std::vector<int> x(2 + 1), y(1 + 1);
    MPI_Aint disp[2];
    MPI_Get_address(x.data(), &disp[0]);
    MPI_Get_address(y.data(), &disp[1]);
    g_disp = {disp[0], disp[1]};
    int bl[2] = {2, 1};
    MPI_Datatype tys[2] = {MPI_INT, MPI_INT}, st;
    MPI_Type_create_struct(2, bl, disp, tys, &st);
    MPI_Type_commit(&st);
    MPI_Op op;
    MPI_Op_create(structSum, 1, &op);
    const long n = size;
    auto prepare = [&] {
        x = {rank, val(rank, 0), -7};
        y = {1, -7};
    };
    run(chk, m,
        {"Allreduce",
         [&] { return MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, st, op, MPI_COMM_WORLD); },
         [&](MPI_Request* q) { return MPI_Iallreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, st, op, MPI_COMM_WORLD, q); },
         [&](MPI_Request* q) {
             return MPIX_Allreduce_init(MPI_IN_PLACE, MPI_BOTTOM, 1, st, op, MPI_COMM_WORLD, MPI_INFO_NULL, q);
         }},
        prepare, [&] {
            long s1 = 0;
            for (int q = 0; q < size; ++q) s1 += val(q, 0);
            chk.eq(x[0], n * (n - 1) / 2, "allreduce bottom x[0]");
            chk.eq(x[1], s1, "allreduce bottom x[1]");
            chk.eq(y[0], n, "allreduce bottom y[0]");
            chk.eq(x[2], -7, "allreduce bottom wrote past x");
            chk.eq(y[1], -7, "allreduce bottom wrote past y");
        });
    for (int root : {0, size - 1}) {
        const void* sb = rank == root ? MPI_IN_PLACE : MPI_BOTTOM;
        run(chk, m,
            {"Reduce", [&] { return MPI_Reduce(sb, MPI_BOTTOM, 1, st, op, root, MPI_COMM_WORLD); },
             [&](MPI_Request* q) { return MPI_Ireduce(sb, MPI_BOTTOM, 1, st, op, root, MPI_COMM_WORLD, q); },
             [&](MPI_Request* q) {
                 return MPIX_Reduce_init(sb, MPI_BOTTOM, 1, st, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, q);
             }},
            prepare, [&] {
                if (rank != root) {
                    chk.eq(x[0], rank, "reduce bottom changed a non-root's send buffer");
                    return;
                }
                chk.eq(x[0], n * (n - 1) / 2, "reduce bottom x[0]");
                chk.eq(y[0], n, "reduce bottom y[0]");
                chk.eq(x[2], -7, "reduce bottom wrote past x");
            });
    }
    MPI_Op_free(&op);
    MPI_Type_free(&st);
}

INSTANTIATE_TEST_SUITE_P(M, Bottom, ::testing::Values(Mode::Blocking, Mode::Nonblocking, Mode::Persistent),
                         modeParamName);

}  // namespace
