// Rooted collectives: bcast, reduce, gather(v), scatter(v); every root,
// MPI_IN_PLACE, zero counts, derived and mismatched-but-equal-signature types.

#include "harness.hpp"

using namespace mpitest;

namespace {

// Position of signature element k (an int) in a buffer of vec3 elements.
inline long vpos(long k) { return (k / 3) * 5 + (k % 3) * 2; }
inline bool vgap(long p) { return (p % 5) == 1 || (p % 5) == 3; }

long sumVal(int n, long i) {
    long s = 0;
    for (int r = 0; r < n; ++r) s += val(r, i);
    return s;
}

class Rooted : public MpiModeTest {};

TEST_P(Rooted, Bcast) {
    const Mode m = GetParam();
    for (int root = 0; root < size; ++root) {
        for (int n : {0, 1, 1000}) {
            std::vector<int> b(n + 1);
            run(chk, m,
                {"Bcast", [&] { return MPI_Bcast(b.data(), n, MPI_INT, root, MPI_COMM_WORLD); },
                 [&](MPI_Request* r) { return MPI_Ibcast(b.data(), n, MPI_INT, root, MPI_COMM_WORLD, r); },
                 [&](MPI_Request* r) {
                     return MPIX_Bcast_init(b.data(), n, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, r);
                 }},
                [&] {
                    for (int i = 0; i <= n; ++i) b[i] = (rank == root && i < n) ? val(root, i) : -1;
                },
                [&] {
                    for (int i = 0; i < n; ++i) chk.eq(b[i], val(root, i), "bcast", i);
                    chk.eq(b[n], -1, "bcast wrote past count", n);
                });
        }
    }
}

// Root sends n vec3 elements; receivers use vec3, contig3 or 3n MPI_INT.
TEST_P(Rooted, BcastDerived) {
    const Mode m = GetParam();
    const Types& t = types();
    const int n = 37;
    for (int root = 0; root < size; ++root) {
        const int kind = rank == root ? 0 : rank % 3;  // 0 vec3, 1 contig3, 2 int
        std::vector<int> b(5 * n + 2);
        MPI_Datatype dt = kind == 0 ? t.vec3 : kind == 1 ? t.contig3 : MPI_INT;
        int cnt = kind == 2 ? 3 * n : n;
        run(chk, m,
            {"Bcast(derived)", [&] { return MPI_Bcast(b.data(), cnt, dt, root, MPI_COMM_WORLD); },
             [&](MPI_Request* r) { return MPI_Ibcast(b.data(), cnt, dt, root, MPI_COMM_WORLD, r); },
             [&](MPI_Request* r) {
                 return MPIX_Bcast_init(b.data(), cnt, dt, root, MPI_COMM_WORLD, MPI_INFO_NULL, r);
             }},
            [&] {
                std::fill(b.begin(), b.end(), -7);
                if (rank == root)
                    for (long k = 0; k < 3 * n; ++k) b[vpos(k)] = val(root, k);
            },
            [&] {
                for (long k = 0; k < 3 * n; ++k)
                    chk.eq(b[kind == 0 ? vpos(k) : k], val(root, k), "bcast derived", k);
                if (kind == 0) {
                    for (long p = 0; p < 5 * n; ++p)
                        if (vgap(p)) chk.eq(b[p], -7, "bcast vec3 gap overwritten", p);
                } else {
                    chk.eq(b[3 * n], -7, "bcast wrote past count", 3 * n);
                }
            });
    }
}

TEST_P(Rooted, ReduceSum) {
    const Mode m = GetParam();
    for (int root = 0; root < size; ++root) {
        for (int n : {0, 7, 1000}) {
            const bool inplace = (root % 2 == 1) && rank == root;
            std::vector<int> s(n + 1), r(n + 1);
            const void* sb = inplace ? MPI_IN_PLACE : s.data();
            run(chk, m,
                {"Reduce", [&] { return MPI_Reduce(sb, r.data(), n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD); },
                 [&](MPI_Request* q) {
                     return MPI_Ireduce(sb, r.data(), n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, q);
                 },
                 [&](MPI_Request* q) {
                     return MPIX_Reduce_init(sb, r.data(), n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD,
                                             MPI_INFO_NULL, q);
                 }},
                [&] {
                    for (int i = 0; i <= n; ++i) {
                        s[i] = i < n ? val(rank, i) : -5;
                        r[i] = inplace && i < n ? val(rank, i) : -1;
                    }
                },
                [&] {
                    if (rank == root) {
                        for (int i = 0; i < n; ++i) chk.eq(r[i], sumVal(size, i), inplace ? "reduce in place" : "reduce", i);
                        chk.eq(r[n], -1, "reduce wrote past count", n);
                    }
                });
        }
    }
}

// Gather: non-roots send n MPI_INT; root receives into gapint elements (every
// int surrounded by gaps) or, for odd roots, in place with MPI_INT.
TEST_P(Rooted, Gather) {
    const Mode m = GetParam();
    const Types& t = types();
    for (int root = 0; root < size; ++root) {
        for (int n : {0, 5, 300}) {
            const bool inplace = root % 2 == 1;
            const bool iroot = rank == root;
            std::vector<int> s(n + 1);
            // gapint layout: element j's int at [1 + 3j]; base pointer = data() + 1.
            std::vector<int> r(3 * n * size + 2);
            MPI_Datatype rt = inplace ? MPI_INT : t.gapint;
            auto at = [&](long j) -> int& { return inplace ? r[j] : r[1 + 3 * j]; };
            void* rb = inplace ? r.data() : r.data() + 1;
            const void* sb = (inplace && iroot) ? MPI_IN_PLACE : s.data();
            run(chk, m,
                {"Gather", [&] { return MPI_Gather(sb, n, MPI_INT, rb, n, rt, root, MPI_COMM_WORLD); },
                 [&](MPI_Request* q) { return MPI_Igather(sb, n, MPI_INT, rb, n, rt, root, MPI_COMM_WORLD, q); },
                 [&](MPI_Request* q) {
                     return MPIX_Gather_init(sb, n, MPI_INT, rb, n, rt, root, MPI_COMM_WORLD, MPI_INFO_NULL, q);
                 }},
                [&] {
                    for (int i = 0; i < n; ++i) s[i] = val(rank, i);
                    std::fill(r.begin(), r.end(), -7);
                    if (inplace && iroot)
                        for (int i = 0; i < n; ++i) at(long(root) * n + i) = val(root, i);
                },
                [&] {
                    if (!iroot) return;
                    for (int q = 0; q < size; ++q)
                        for (int i = 0; i < n; ++i) chk.eq(at(long(q) * n + i), val(q, i), "gather", long(q) * n + i);
                    if (!inplace)
                        for (long j = 0; j < long(n) * size; ++j) {
                            chk.eq(r[3 * j], -7, "gather gap before", j);
                            chk.eq(r[3 * j + 2], -7, "gather gap after", j);
                        }
                });
        }
    }
}

// Gatherv: rank q contributes q % 3 ints (zero on some ranks); blocks are placed
// in reverse rank order with one unused int between them.
TEST_P(Rooted, Gatherv) {
    const Mode m = GetParam();
    std::vector<int> counts(size), displs(size);
    int off = 0;
    for (int q = size - 1; q >= 0; --q) {
        counts[q] = (q % 3) * 4;
        displs[q] = off;
        off += counts[q] + 1;
    }
    for (int root = 0; root < size; ++root) {
        const bool inplace = root % 2 == 0 && rank == root;
        const int n = counts[rank];
        std::vector<int> s(n + 1), r(off + 1);
        const void* sb = inplace ? MPI_IN_PLACE : s.data();
        run(chk, m,
            {"Gatherv", [&] { return MPI_Gatherv(sb, n, MPI_INT, r.data(), counts.data(), displs.data(), MPI_INT, root, MPI_COMM_WORLD); },
             [&](MPI_Request* q) {
                 return MPI_Igatherv(sb, n, MPI_INT, r.data(), counts.data(), displs.data(), MPI_INT, root, MPI_COMM_WORLD, q);
             },
             [&](MPI_Request* q) {
                 return MPIX_Gatherv_init(sb, n, MPI_INT, r.data(), counts.data(), displs.data(), MPI_INT, root,
                                          MPI_COMM_WORLD, MPI_INFO_NULL, q);
             }},
            [&] {
                for (int i = 0; i < n; ++i) s[i] = val(rank, i);
                std::fill(r.begin(), r.end(), -7);
                if (inplace)
                    for (int i = 0; i < n; ++i) r[displs[rank] + i] = val(rank, i);
            },
            [&] {
                if (rank != root) return;
                std::vector<int> exp(off + 1, -7);
                for (int q = 0; q < size; ++q)
                    for (int i = 0; i < counts[q]; ++i) exp[displs[q] + i] = val(q, i);
                for (int j = 0; j <= off; ++j) chk.eq(r[j], exp[j], "gatherv", j);
            });
    }
}

// Scatter: root sends with vec3 (n elements per rank); receivers use contig3 or
// 3n MPI_INT; odd roots receive in place.
TEST_P(Rooted, Scatter) {
    const Mode m = GetParam();
    const Types& t = types();
    for (int root = 0; root < size; ++root) {
        for (int n : {0, 1, 40}) {
            const bool iroot = rank == root;
            const bool inplace = root % 2 == 1 && iroot;
            std::vector<int> s(5 * n * size + 1), r(3 * n + 1);
            MPI_Datatype rt = rank % 2 ? t.contig3 : MPI_INT;
            const int rc = rank % 2 ? n : 3 * n;
            void* rb = inplace ? MPI_IN_PLACE : r.data();
            run(chk, m,
                {"Scatter", [&] { return MPI_Scatter(s.data(), n, t.vec3, rb, rc, rt, root, MPI_COMM_WORLD); },
                 [&](MPI_Request* q) { return MPI_Iscatter(s.data(), n, t.vec3, rb, rc, rt, root, MPI_COMM_WORLD, q); },
                 [&](MPI_Request* q) {
                     return MPIX_Scatter_init(s.data(), n, t.vec3, rb, rc, rt, root, MPI_COMM_WORLD, MPI_INFO_NULL, q);
                 }},
                [&] {
                    std::fill(s.begin(), s.end(), -7);
                    std::fill(r.begin(), r.end(), -1);
                    if (iroot)
                        for (int q = 0; q < size; ++q)
                            for (long k = 0; k < 3 * n; ++k) s[vpos(long(q) * 3 * n + k)] = val(q, k);
                },
                [&] {
                    if (inplace) {
                        for (long k = 0; k < 3L * n * size; ++k) chk.eq(s[vpos(k)], val(int(k / (3 * n)), k % (3 * n)), "scatter in place: send buffer changed", k);
                        return;
                    }
                    for (int k = 0; k < 3 * n; ++k) chk.eq(r[k], val(rank, k), "scatter", k);
                    chk.eq(r[3 * n], -1, "scatter wrote past count", 3 * n);
                });
        }
    }
}

// Scatterv: rank q gets (q * 2) % 5 ints (zero on some), blocks in reverse order.
TEST_P(Rooted, Scatterv) {
    const Mode m = GetParam();
    std::vector<int> counts(size), displs(size);
    int off = 0;
    for (int q = size - 1; q >= 0; --q) {
        counts[q] = (q * 2) % 5;
        displs[q] = off;
        off += counts[q] + 2;
    }
    for (int root = 0; root < size; ++root) {
        const bool inplace = root % 2 == 0 && rank == root;
        const int n = counts[rank];
        std::vector<int> s(off + 1), r(n + 1);
        void* rb = inplace ? MPI_IN_PLACE : r.data();
        run(chk, m,
            {"Scatterv", [&] { return MPI_Scatterv(s.data(), counts.data(), displs.data(), MPI_INT, rb, n, MPI_INT, root, MPI_COMM_WORLD); },
             [&](MPI_Request* q) {
                 return MPI_Iscatterv(s.data(), counts.data(), displs.data(), MPI_INT, rb, n, MPI_INT, root, MPI_COMM_WORLD, q);
             },
             [&](MPI_Request* q) {
                 return MPIX_Scatterv_init(s.data(), counts.data(), displs.data(), MPI_INT, rb, n, MPI_INT, root,
                                           MPI_COMM_WORLD, MPI_INFO_NULL, q);
             }},
            [&] {
                std::fill(s.begin(), s.end(), -7);
                std::fill(r.begin(), r.end(), -1);
                if (rank == root)
                    for (int q = 0; q < size; ++q)
                        for (int i = 0; i < counts[q]; ++i) s[displs[q] + i] = val(q, i);
            },
            [&] {
                if (inplace) return;
                for (int i = 0; i < n; ++i) chk.eq(r[i], val(rank, i), "scatterv", i);
                chk.eq(r[n], -1, "scatterv wrote past count", n);
            });
    }
}

// Gatherv and scatterv with a non-contiguous type on the non-root side (vec3: 3 ints,
// stride 2) against MPI_INT at the root: rank q has q % 3 vec3 elements (zero on some),
// root blocks in reverse rank order with a gap; every root, in place on odd roots. The
// hierarchical rows pack vec3 at the member and unpack MPI_INT at the root.
TEST_P(Rooted, GathervScattervDerived) {
    const Mode m = GetParam();
    const Types& t = types();
    std::vector<int> counts(size), displs(size);
    int off = 0;
    for (int q = size - 1; q >= 0; --q) {
        counts[q] = 3 * (q % 3);
        displs[q] = off;
        off += counts[q] + 1;
    }
    const int n = rank % 3;  // vec3 elements of this rank
    for (int root = 0; root < size; ++root) {
        const bool inplace = root % 2 == 1 && rank == root;
        std::vector<int> v(5 * n + 1), r(off + 1);
        const void* gsb = inplace ? MPI_IN_PLACE : v.data();
        run(chk, m,
            {"Gatherv(vec3)", [&] { return MPI_Gatherv(gsb, n, t.vec3, r.data(), counts.data(), displs.data(), MPI_INT, root, MPI_COMM_WORLD); },
             [&](MPI_Request* q) {
                 return MPI_Igatherv(gsb, n, t.vec3, r.data(), counts.data(), displs.data(), MPI_INT, root, MPI_COMM_WORLD, q);
             },
             [&](MPI_Request* q) {
                 return MPIX_Gatherv_init(gsb, n, t.vec3, r.data(), counts.data(), displs.data(), MPI_INT, root,
                                          MPI_COMM_WORLD, MPI_INFO_NULL, q);
             }},
            [&] {
                std::fill(v.begin(), v.end(), -5);
                for (long k = 0; k < 3 * n; ++k) v[vpos(k)] = val(rank, k);
                std::fill(r.begin(), r.end(), -7);
                if (inplace)
                    for (int i = 0; i < counts[rank]; ++i) r[displs[rank] + i] = val(rank, i);
            },
            [&] {
                if (rank != root) return;
                std::vector<int> exp(off + 1, -7);
                for (int q = 0; q < size; ++q)
                    for (int i = 0; i < counts[q]; ++i) exp[displs[q] + i] = val(q, i);
                for (int j = 0; j <= off; ++j) chk.eq(r[j], exp[j], "gatherv vec3", j);
            });
        void* srb = inplace ? MPI_IN_PLACE : v.data();
        run(chk, m,
            {"Scatterv(vec3)", [&] { return MPI_Scatterv(r.data(), counts.data(), displs.data(), MPI_INT, srb, n, t.vec3, root, MPI_COMM_WORLD); },
             [&](MPI_Request* q) {
                 return MPI_Iscatterv(r.data(), counts.data(), displs.data(), MPI_INT, srb, n, t.vec3, root, MPI_COMM_WORLD, q);
             },
             [&](MPI_Request* q) {
                 return MPIX_Scatterv_init(r.data(), counts.data(), displs.data(), MPI_INT, srb, n, t.vec3, root,
                                           MPI_COMM_WORLD, MPI_INFO_NULL, q);
             }},
            [&] {
                std::fill(v.begin(), v.end(), -5);
                std::fill(r.begin(), r.end(), -7);
                if (rank == root)
                    for (int q = 0; q < size; ++q)
                        for (int i = 0; i < counts[q]; ++i) r[displs[q] + i] = val(q, i);
            },
            [&] {
                if (inplace) return;
                for (long k = 0; k < 5 * n + 1; ++k) {
                    const bool data = k < 5 * n && k % 5 % 2 == 0;
                    chk.eq(v[k], data ? val(rank, (k / 5) * 3 + (k % 5) / 2) : -5, "scatterv vec3", k);
                }
            });
    }
}

INSTANTIATE_TEST_SUITE_P(M, Rooted,
                         ::testing::Values(Mode::Blocking, Mode::Nonblocking, Mode::Persistent),
                         modeParamName);

}  // namespace
