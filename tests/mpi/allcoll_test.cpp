// Non-rooted collectives: allreduce, allgather(v), alltoall(v,w),
// reduce_scatter(_block), scan, exscan, barrier (with an ordering check).
#include <chrono>
#include <thread>

#include "harness.hpp"

using namespace mpitest;

namespace {

long sumTo(int n, long i) {  // sum of val(q, i) for q < n
    long s = 0;
    for (int q = 0; q < n; ++q) s += val(q, i);
    return s;
}

class All : public MpiModeTest {};

TEST_P(All, Allreduce) {
    const Mode m = GetParam();
    for (int n : {0, 1, 1000}) {
        for (bool inplace : {false, true}) {
            std::vector<int> s(n + 1), r(n + 1);
            const void* sb = inplace ? MPI_IN_PLACE : s.data();
            run(chk, m,
                {"Allreduce", [&] { return MPI_Allreduce(sb, r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD); },
                 [&](MPI_Request* q) { return MPI_Iallreduce(sb, r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, q); },
                 [&](MPI_Request* q) {
                     return MPIX_Allreduce_init(sb, r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, q);
                 }},
                [&] {
                    for (int i = 0; i <= n; ++i) {
                        s[i] = val(rank, i);
                        r[i] = inplace && i < n ? val(rank, i) : -1;
                    }
                },
                [&] {
                    for (int i = 0; i < n; ++i) chk.eq(r[i], sumTo(size, i), inplace ? "allreduce in place" : "allreduce", i);
                    chk.eq(r[n], -1, "allreduce wrote past count", n);
                });
        }
    }
}

// Allgather: send 1 contig3 (or 3 MPI_INT), receive 3 gapint per rank; and in place.
TEST_P(All, Allgather) {
    const Mode m = GetParam();
    const Types& t = types();
    for (int n : {0, 1, 25}) {
        for (bool inplace : {false, true}) {
            const int k = 3 * n;  // ints per rank
            std::vector<int> s(k + 1), r(3 * k * size + 2);
            auto at = [&](long j) -> int& { return inplace ? r[j] : r[1 + 3 * j]; };
            void* rb = inplace ? r.data() : r.data() + 1;
            MPI_Datatype rt = inplace ? MPI_INT : t.gapint;
            MPI_Datatype st = rank % 2 ? t.contig3 : MPI_INT;
            const int sc = rank % 2 ? n : k;
            const void* sb = inplace ? MPI_IN_PLACE : s.data();
            run(chk, m,
                {"Allgather", [&] { return MPI_Allgather(sb, sc, st, rb, k, rt, MPI_COMM_WORLD); },
                 [&](MPI_Request* q) { return MPI_Iallgather(sb, sc, st, rb, k, rt, MPI_COMM_WORLD, q); },
                 [&](MPI_Request* q) {
                     return MPIX_Allgather_init(sb, sc, st, rb, k, rt, MPI_COMM_WORLD, MPI_INFO_NULL, q);
                 }},
                [&] {
                    for (int i = 0; i < k; ++i) s[i] = val(rank, i);
                    std::fill(r.begin(), r.end(), -7);
                    if (inplace)
                        for (int i = 0; i < k; ++i) at(long(rank) * k + i) = val(rank, i);
                },
                [&] {
                    for (int q = 0; q < size; ++q)
                        for (int i = 0; i < k; ++i) chk.eq(at(long(q) * k + i), val(q, i), "allgather", long(q) * k + i);
                    if (!inplace)
                        for (long j = 0; j < long(k) * size; ++j) {
                            chk.eq(r[3 * j], -7, "allgather gap before", j);
                            chk.eq(r[3 * j + 2], -7, "allgather gap after", j);
                        }
                });
        }
    }
}

// Allgatherv: rank q contributes (q % 3) * 2 ints (zero on some), reverse order.
TEST_P(All, Allgatherv) {
    const Mode m = GetParam();
    std::vector<int> counts(size), displs(size);
    int off = 0;
    for (int q = size - 1; q >= 0; --q) {
        counts[q] = (q % 3) * 2;
        displs[q] = off;
        off += counts[q] + 1;
    }
    for (bool inplace : {false, true}) {
        const int n = counts[rank];
        std::vector<int> s(n + 1), r(off + 1);
        const void* sb = inplace ? MPI_IN_PLACE : s.data();
        run(chk, m,
            {"Allgatherv", [&] { return MPI_Allgatherv(sb, n, MPI_INT, r.data(), counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD); },
             [&](MPI_Request* q) {
                 return MPI_Iallgatherv(sb, n, MPI_INT, r.data(), counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD, q);
             },
             [&](MPI_Request* q) {
                 return MPIX_Allgatherv_init(sb, n, MPI_INT, r.data(), counts.data(), displs.data(), MPI_INT,
                                             MPI_COMM_WORLD, MPI_INFO_NULL, q);
             }},
            [&] {
                for (int i = 0; i < n; ++i) s[i] = val(rank, i);
                std::fill(r.begin(), r.end(), -7);
                if (inplace)
                    for (int i = 0; i < n; ++i) r[displs[rank] + i] = val(rank, i);
            },
            [&] {
                std::vector<int> exp(off + 1, -7);
                for (int q = 0; q < size; ++q)
                    for (int i = 0; i < counts[q]; ++i) exp[displs[q] + i] = val(q, i);
                for (int j = 0; j <= off; ++j) chk.eq(r[j], exp[j], "allgatherv", j);
            });
    }
}

// Alltoall: block to d holds val(me, d*k + i). Senders use 1 vec3 per peer in
// one variant (receivers 3 MPI_INT), and MPI_IN_PLACE in another.
TEST_P(All, Alltoall) {
    const Mode m = GetParam();
    const Types& t = types();
    for (int variant = 0; variant < 3; ++variant) {  // 0 int, 1 vec3 -> int, 2 in place
        const int k = variant == 1 ? 3 : (variant == 0 ? 4 : 2);
        std::vector<int> s(5 * size + k * size + 1), r(k * size + 1);
        const void* sb = variant == 2 ? MPI_IN_PLACE : s.data();
        MPI_Datatype st = variant == 1 ? t.vec3 : MPI_INT;
        const int sc = variant == 1 ? 1 : k;
        run(chk, m,
            {"Alltoall", [&] { return MPI_Alltoall(sb, sc, st, r.data(), k, MPI_INT, MPI_COMM_WORLD); },
             [&](MPI_Request* q) { return MPI_Ialltoall(sb, sc, st, r.data(), k, MPI_INT, MPI_COMM_WORLD, q); },
             [&](MPI_Request* q) {
                 return MPIX_Alltoall_init(sb, sc, st, r.data(), k, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, q);
             }},
            [&] {
                std::fill(s.begin(), s.end(), -7);
                std::fill(r.begin(), r.end(), -1);
                for (int d = 0; d < size; ++d)
                    for (int i = 0; i < k; ++i) {
                        if (variant == 1) s[d * 5 + i * 2] = val(rank, d * k + i);
                        else if (variant == 0) s[d * k + i] = val(rank, d * k + i);
                        else r[d * k + i] = val(rank, d * k + i);
                    }
            },
            [&] {
                for (int q = 0; q < size; ++q)
                    for (int i = 0; i < k; ++i)
                        chk.eq(r[q * k + i], val(q, rank * k + i), variant == 2 ? "alltoall in place" : "alltoall", q * k + i);
                chk.eq(r[k * size], -1, "alltoall wrote past end", k * size);
            });
    }
}

// Alltoallv: s -> d carries (s + d) % 3 ints (zeros included), blocks in reverse order.
TEST_P(All, Alltoallv) {
    const Mode m = GetParam();
    auto cnt = [](int s, int d) { return (s + d) % 3; };
    for (bool inplace : {false, true}) {
        std::vector<int> sc(size), sd(size), rc(size), rd(size);
        int so = 0, ro = 0;
        for (int p = size - 1; p >= 0; --p) {
            sc[p] = cnt(rank, p), sd[p] = so, so += sc[p] + 1;
            rc[p] = cnt(p, rank), rd[p] = ro, ro += rc[p] + 1;
        }
        if (inplace) sc = rc, sd = rd;  // in place: the receive layout is the send layout
        std::vector<int> s(so + 1), r(ro + 1);
        const void* sb = inplace ? MPI_IN_PLACE : s.data();
        run(chk, m,
            {"Alltoallv", [&] { return MPI_Alltoallv(sb, sc.data(), sd.data(), MPI_INT, r.data(), rc.data(), rd.data(), MPI_INT, MPI_COMM_WORLD); },
             [&](MPI_Request* q) {
                 return MPI_Ialltoallv(sb, sc.data(), sd.data(), MPI_INT, r.data(), rc.data(), rd.data(), MPI_INT, MPI_COMM_WORLD, q);
             },
             [&](MPI_Request* q) {
                 return MPIX_Alltoallv_init(sb, sc.data(), sd.data(), MPI_INT, r.data(), rc.data(), rd.data(), MPI_INT,
                                            MPI_COMM_WORLD, MPI_INFO_NULL, q);
             }},
            [&] {
                std::fill(s.begin(), s.end(), -7);
                std::fill(r.begin(), r.end(), -7);
                for (int d = 0; d < size; ++d)
                    for (int i = 0; i < cnt(rank, d); ++i) (inplace ? r[rd[d] + i] : s[sd[d] + i]) = val(rank, d * 10 + i);
            },
            [&] {
                std::vector<int> exp(ro + 1, -7);
                for (int p = 0; p < size; ++p)
                    for (int i = 0; i < rc[p]; ++i) exp[rd[p] + i] = val(p, rank * 10 + i);
                for (int j = 0; j <= ro; ++j) chk.eq(r[j], exp[j], inplace ? "alltoallv in place" : "alltoallv", j);
            });
    }
}

// Alltoallw: s -> d carries 2 * ((s + d) % 2) + 2 ints; the sender uses MPI_INT,
// the receiver contig2; byte displacements in reverse order with gaps.
TEST_P(All, Alltoallw) {
    const Mode m = GetParam();
    const Types& t = types();
    auto cnt = [](int s, int d) { return 2 * ((s + d) % 2) + 2; };
    std::vector<int> sc(size), sd(size), rc(size), rd(size);
    std::vector<MPI_Datatype> st(size, MPI_INT), rt(size, t.contig2);
    int so = 0, ro = 0;  // in ints
    for (int p = size - 1; p >= 0; --p) {
        sc[p] = cnt(rank, p), sd[p] = so * 4, so += sc[p] + 1;
        rc[p] = cnt(p, rank) / 2, rd[p] = ro * 4, ro += 2 * rc[p] + 1;
    }
    std::vector<int> s(so + 1), r(ro + 1);
    run(chk, m,
        {"Alltoallw", [&] { return MPI_Alltoallw(s.data(), sc.data(), sd.data(), st.data(), r.data(), rc.data(), rd.data(), rt.data(), MPI_COMM_WORLD); },
         [&](MPI_Request* q) {
             return MPI_Ialltoallw(s.data(), sc.data(), sd.data(), st.data(), r.data(), rc.data(), rd.data(), rt.data(), MPI_COMM_WORLD, q);
         },
         [&](MPI_Request* q) {
             return MPIX_Alltoallw_init(s.data(), sc.data(), sd.data(), st.data(), r.data(), rc.data(), rd.data(),
                                        rt.data(), MPI_COMM_WORLD, MPI_INFO_NULL, q);
         }},
        [&] {
            std::fill(s.begin(), s.end(), -7);
            std::fill(r.begin(), r.end(), -7);
            for (int d = 0; d < size; ++d)
                for (int i = 0; i < sc[d]; ++i) s[sd[d] / 4 + i] = val(rank, d * 10 + i);
        },
        [&] {
            std::vector<int> exp(ro + 1, -7);
            for (int p = 0; p < size; ++p)
                for (int i = 0; i < 2 * rc[p]; ++i) exp[rd[p] / 4 + i] = val(p, rank * 10 + i);
            for (int j = 0; j <= ro; ++j) chk.eq(r[j], exp[j], "alltoallw", j);
        });
}

// Reduce_scatter_block: rank q gets the sum of everybody's block q; in place too.
TEST_P(All, ReduceScatterBlock) {
    const Mode m = GetParam();
    for (int k : {0, 5}) {
        for (bool inplace : {false, true}) {
            std::vector<int> s(k * size + 1), r(k * size + 1);
            const void* sb = inplace ? MPI_IN_PLACE : s.data();
            run(chk, m,
                {"Reduce_scatter_block", [&] { return MPI_Reduce_scatter_block(sb, r.data(), k, MPI_INT, MPI_SUM, MPI_COMM_WORLD); },
                 [&](MPI_Request* q) { return MPI_Ireduce_scatter_block(sb, r.data(), k, MPI_INT, MPI_SUM, MPI_COMM_WORLD, q); },
                 [&](MPI_Request* q) {
                     return MPIX_Reduce_scatter_block_init(sb, r.data(), k, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, q);
                 }},
                [&] {
                    for (int i = 0; i <= k * size; ++i) {
                        s[i] = val(rank, i);
                        r[i] = inplace && i < k * size ? val(rank, i) : -1;
                    }
                },
                [&] {
                    for (int i = 0; i < k; ++i) chk.eq(r[i], sumTo(size, rank * k + i), "reduce_scatter_block", i);
                    if (!inplace) chk.eq(r[k], -1, "reduce_scatter_block wrote past count", k);
                });
        }
    }
}

// Reduce_scatter: rank q gets (q % 3) sums (zero on some ranks); in place too.
TEST_P(All, ReduceScatter) {
    const Mode m = GetParam();
    std::vector<int> counts(size), start(size);
    int total = 0;
    for (int q = 0; q < size; ++q) counts[q] = q % 3, start[q] = total, total += counts[q];
    for (bool inplace : {false, true}) {
        std::vector<int> s(total + 1), r(total + 1);
        const void* sb = inplace ? MPI_IN_PLACE : s.data();
        run(chk, m,
            {"Reduce_scatter", [&] { return MPI_Reduce_scatter(sb, r.data(), counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD); },
             [&](MPI_Request* q) { return MPI_Ireduce_scatter(sb, r.data(), counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD, q); },
             [&](MPI_Request* q) {
                 return MPIX_Reduce_scatter_init(sb, r.data(), counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, q);
             }},
            [&] {
                for (int i = 0; i <= total; ++i) {
                    s[i] = val(rank, i);
                    r[i] = inplace && i < total ? val(rank, i) : -1;
                }
            },
            [&] {
                for (int i = 0; i < counts[rank]; ++i) chk.eq(r[i], sumTo(size, start[rank] + i), "reduce_scatter", i);
                if (!inplace) chk.eq(r[counts[rank]], -1, "reduce_scatter wrote past count", counts[rank]);
            });
    }
}

TEST_P(All, ScanExscan) {
    const Mode m = GetParam();
    for (int n : {0, 1, 300}) {
        for (bool inplace : {false, true}) {
            for (bool ex : {false, true}) {
                std::vector<int> s(n + 1), r(n + 1);
                const void* sb = inplace ? MPI_IN_PLACE : s.data();
                auto blocking = [&] {
                    return ex ? MPI_Exscan(sb, r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                              : MPI_Scan(sb, r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                };
                auto start = [&](MPI_Request* q) {
                    return ex ? MPI_Iexscan(sb, r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, q)
                              : MPI_Iscan(sb, r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, q);
                };
                auto init = [&](MPI_Request* q) {
                    return ex ? MPIX_Exscan_init(sb, r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, q)
                              : MPIX_Scan_init(sb, r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, q);
                };
                run(chk, m, {ex ? "Exscan" : "Scan", blocking, start, init},
                    [&] {
                        for (int i = 0; i <= n; ++i) {
                            s[i] = val(rank, i);
                            r[i] = inplace && i < n ? val(rank, i) : -1;
                        }
                    },
                    [&] {
                        if (ex && rank == 0) return;  // undefined on rank 0
                        for (int i = 0; i < n; ++i)
                            chk.eq(r[i], sumTo(ex ? rank : rank + 1, i), ex ? "exscan" : "scan", i);
                        chk.eq(r[n], -1, "scan wrote past count", n);
                    });
            }
        }
    }
}

// CLOCK_MONOTONIC is system-wide on Linux (all ranks run on one host here);
// MPI_Wtime is not comparable across processes (Open MPI subtracts a per-process origin).
double monoNow() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Barrier: one rank (each in turn) enters 40 ms late and notes the clock just
// before entering; every other rank notes the time it left and sends it to the
// late rank (point-to-point), which checks nobody left before it entered.
TEST_P(All, BarrierOrdering) {
    const Mode m = GetParam();
    const int tag = 31100;
    for (int late = 0; late < size; ++late) {
        double entered = 0, left = 0;
        MPI_Request pr = MPI_REQUEST_NULL;
        bool started = true;
        auto enter = [&] {
            if (rank == late) {
                std::this_thread::sleep_for(std::chrono::milliseconds(40));
                entered = monoNow();
            }
        };
        int rc = MPI_SUCCESS;
        if (m == Mode::Blocking) {
            enter();
            rc = MPI_Barrier(MPI_COMM_WORLD);
        } else if (m == Mode::Nonblocking) {
            enter();
            rc = MPI_Ibarrier(MPI_COMM_WORLD, &pr);
            if (rc == MPI_SUCCESS) rc = MPI_Wait(&pr, MPI_STATUS_IGNORE);
        } else {
            rc = MPIX_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pr);
            if (rc == MPI_SUCCESS) {
                enter();
                rc = MPI_Start(&pr);
                if (rc == MPI_SUCCESS) rc = MPI_Wait(&pr, MPI_STATUS_IGNORE);
                MPI_Request_free(&pr);
            }
        }
        left = monoNow();
        started = chk.ok(rc, (std::string("Barrier (") + modeName(m) + ")").c_str());
        // Always exchange, so nobody waits forever; a failed barrier sends -1.
        if (rank == late) {
            for (int q = 0; q < size; ++q) {
                if (q == late) continue;
                double t = 0;
                MPI_Recv(&t, 1, MPI_DOUBLE, q, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (t >= 0 && t < entered)
                    chk.fail("barrier: rank " + std::to_string(q) + " left " +
                             std::to_string((entered - t) * 1e3) + " ms before late rank " +
                             std::to_string(late) + " entered");
            }
        } else {
            double t = started ? left : -1;
            MPI_Send(&t, 1, MPI_DOUBLE, late, tag, MPI_COMM_WORLD);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(M, All, ::testing::Values(Mode::Blocking, Mode::Nonblocking, Mode::Persistent),
                         modeParamName);

}  // namespace
