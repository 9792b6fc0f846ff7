// Reduction operations (every predefined op, MAXLOC/MINLOC, a non-commutative
// user op), bitwise-reproducible double sums, many collectives in flight and
// large (multi-segment) messages.
#include <cstring>

#include "harness.hpp"

using namespace mpitest;

namespace {

// Runs allreduce, reduce (root size-1), scan (nonblocking, blocking, in place) and exscan
// of n elements and checks each against fold(values of ranks 0..q) for q = size-1
// (allreduce, reduce), rank (scan) or rank-1 (exscan).
template <class T>
void checkOp(Check& chk, MPI_Datatype dt, MPI_Op op, const char* name, T (*v)(int, int),
             T (*fold)(T, T)) {
    const int n = 33, size = worldSize(), rank = worldRank();
    std::vector<T> s(n), r(n);
    auto expect = [&](int upto, int i) {
        T acc = v(0, i);
        for (int q = 1; q <= upto; ++q) acc = fold(acc, v(q, i));
        return acc;
    };
    for (int i = 0; i < n; ++i) s[i] = v(rank, i);
    const std::string l = name;
    if (chk.ok(MPI_Allreduce(s.data(), r.data(), n, dt, op, MPI_COMM_WORLD), (l + " MPI_Allreduce").c_str()))
        for (int i = 0; i < n; ++i) chk.truth(r[i] == expect(size - 1, i), l + " allreduce [" + std::to_string(i) + "]");
    std::fill(r.begin(), r.end(), T());
    if (chk.ok(MPI_Reduce(s.data(), r.data(), n, dt, op, size - 1, MPI_COMM_WORLD), (l + " MPI_Reduce").c_str()) &&
        rank == size - 1)
        for (int i = 0; i < n; ++i) chk.truth(r[i] == expect(size - 1, i), l + " reduce [" + std::to_string(i) + "]");
    std::fill(r.begin(), r.end(), T());
    MPI_Request q;
    if (chk.ok(MPI_Iscan(s.data(), r.data(), n, dt, op, MPI_COMM_WORLD, &q), (l + " MPI_Iscan").c_str()) &&
        chk.ok(MPI_Wait(&q, MPI_STATUS_IGNORE), (l + " MPI_Iscan wait").c_str()))
        for (int i = 0; i < n; ++i) chk.truth(r[i] == expect(rank, i), l + " scan [" + std::to_string(i) + "]");
    // Blocking scan twice (the repeat runs the compiled call), in place, and exscan.
    for (int call = 0; call < 2; ++call) {
        std::fill(r.begin(), r.end(), T());
        if (chk.ok(MPI_Scan(s.data(), r.data(), n, dt, op, MPI_COMM_WORLD), (l + " MPI_Scan").c_str()))
            for (int i = 0; i < n; ++i) chk.truth(r[i] == expect(rank, i), l + " blocking scan [" + std::to_string(i) + "]");
    }
    r = s;
    if (chk.ok(MPI_Scan(MPI_IN_PLACE, r.data(), n, dt, op, MPI_COMM_WORLD), (l + " MPI_Scan in place").c_str()))
        for (int i = 0; i < n; ++i) chk.truth(r[i] == expect(rank, i), l + " scan in place [" + std::to_string(i) + "]");
    std::fill(r.begin(), r.end(), T());
    if (chk.ok(MPI_Exscan(s.data(), r.data(), n, dt, op, MPI_COMM_WORLD), (l + " MPI_Exscan").c_str()) && rank > 0)
        for (int i = 0; i < n; ++i) chk.truth(r[i] == expect(rank - 1, i), l + " exscan [" + std::to_string(i) + "]");
}

class Ops : public MpiTest {};

TEST_F(Ops, Arithmetic) {
    checkOp<int>(chk, MPI_INT, MPI_SUM, "SUM int", [](int r, int i) { return val(r, i); },
                 [](int a, int b) { return a + b; });
    checkOp<long long>(chk, MPI_LONG_LONG, MPI_SUM, "SUM long long",
                       [](int r, int i) { return (long long)val(r, i) << 33; }, [](long long a, long long b) { return a + b; });
    checkOp<double>(chk, MPI_DOUBLE, MPI_SUM, "SUM double", [](int r, int i) { return val(r, i) * 0.5; },
                    [](double a, double b) { return a + b; });
    checkOp<float>(chk, MPI_FLOAT, MPI_SUM, "SUM float", [](int r, int i) { return float(r + i); },
                   [](float a, float b) { return a + b; });
    checkOp<int>(chk, MPI_INT, MPI_PROD, "PROD int", [](int r, int i) { return (r + i) % 3 + 1; },
                 [](int a, int b) { return a * b; });
    checkOp<double>(chk, MPI_DOUBLE, MPI_PROD, "PROD double", [](int r, int i) { return ((r + i) % 4) * 0.5 + 0.5; },
                    [](double a, double b) { return a * b; });
    checkOp<int>(chk, MPI_INT, MPI_MIN, "MIN int", [](int r, int i) { return (r * 7 + i * 3) % 11 - 5; },
                 [](int a, int b) { return a < b ? a : b; });
    checkOp<int>(chk, MPI_INT, MPI_MAX, "MAX int", [](int r, int i) { return (r * 7 + i * 3) % 11 - 5; },
                 [](int a, int b) { return a > b ? a : b; });
    checkOp<double>(chk, MPI_DOUBLE, MPI_MIN, "MIN double", [](int r, int i) { return ((r * 5 + i) % 9) - 4.25; },
                    [](double a, double b) { return a < b ? a : b; });
    checkOp<unsigned char>(chk, MPI_UNSIGNED_CHAR, MPI_MAX, "MAX unsigned char",
                           [](int r, int i) { return (unsigned char)((r * 37 + i * 11) % 256); },
                           [](unsigned char a, unsigned char b) { return a > b ? a : b; });
}

TEST_F(Ops, LogicalAndBitwise) {
    checkOp<int>(chk, MPI_INT, MPI_LAND, "LAND", [](int r, int i) { return (r + i) % 5 ? 1 : 0; },
                 [](int a, int b) { return (a && b) ? 1 : 0; });
    checkOp<int>(chk, MPI_INT, MPI_LOR, "LOR", [](int r, int i) { return (r * i) % 4 == 1 ? 2 : 0; },
                 [](int a, int b) { return (a || b) ? 1 : 0; });
    checkOp<int>(chk, MPI_INT, MPI_LXOR, "LXOR", [](int r, int i) { return (r + 2 * i) % 3 ? 5 : 0; },
                 [](int a, int b) { return ((a != 0) != (b != 0)) ? 1 : 0; });
    checkOp<unsigned>(chk, MPI_UNSIGNED, MPI_BAND, "BAND", [](int r, int i) { return ~(1u << ((r + i) % 32)); },
                      [](unsigned a, unsigned b) { return a & b; });
    checkOp<unsigned>(chk, MPI_UNSIGNED, MPI_BOR, "BOR", [](int r, int i) { return 1u << ((r * 3 + i) % 32); },
                      [](unsigned a, unsigned b) { return a | b; });
    checkOp<unsigned>(chk, MPI_UNSIGNED, MPI_BXOR, "BXOR", [](int r, int i) { return 0x9e3779b9u * (r + 1) + i; },
                      [](unsigned a, unsigned b) { return a ^ b; });
}

struct IntInt {
    int v, i;
    bool operator==(const IntInt& o) const { return v == o.v && i == o.i; }
};
struct DoubleInt {
    double v;
    int i;
    bool operator==(const DoubleInt& o) const { return v == o.v && i == o.i; }
};

TEST_F(Ops, MaxlocMinloc) {
    // Ties are frequent; the lowest index wins.
    checkOp<IntInt>(chk, MPI_2INT, MPI_MAXLOC, "MAXLOC 2INT",
                    [](int r, int i) { return IntInt{(r * 5 + i) % 4, r}; },
                    [](IntInt a, IntInt b) { return (b.v > a.v || (b.v == a.v && b.i < a.i)) ? b : a; });
    checkOp<IntInt>(chk, MPI_2INT, MPI_MINLOC, "MINLOC 2INT",
                    [](int r, int i) { return IntInt{(r * 3 + i) % 5, r}; },
                    [](IntInt a, IntInt b) { return (b.v < a.v || (b.v == a.v && b.i < a.i)) ? b : a; });
    checkOp<DoubleInt>(chk, MPI_DOUBLE_INT, MPI_MAXLOC, "MAXLOC DOUBLE_INT",
                       [](int r, int i) { return DoubleInt{((r * 7 + i) % 3) * 1.5, r}; },
                       [](DoubleInt a, DoubleInt b) { return (b.v > a.v || (b.v == a.v && b.i < a.i)) ? b : a; });
    checkOp<DoubleInt>(chk, MPI_DOUBLE_INT, MPI_MINLOC, "MINLOC DOUBLE_INT",
                       [](int r, int i) { return DoubleInt{((r * 2 + i) % 3) - 0.5, r}; },
                       [](DoubleInt a, DoubleInt b) { return (b.v < a.v || (b.v == a.v && b.i < a.i)) ? b : a; });
}

// ---- non-commutative user op: 2x2 unsigned matrix product (mod 2^32) ----
struct Mat {
    unsigned a[4];
    bool operator==(const Mat& o) const { return std::memcmp(a, o.a, sizeof a) == 0; }
};
Mat mul(const Mat& x, const Mat& y) {
    return Mat{{x.a[0] * y.a[0] + x.a[1] * y.a[2], x.a[0] * y.a[1] + x.a[1] * y.a[3],
                x.a[2] * y.a[0] + x.a[3] * y.a[2], x.a[2] * y.a[1] + x.a[3] * y.a[3]}};
}
Mat mat(int r, long i) {
    return Mat{{unsigned(r + 2), unsigned(i + 1), 1u, unsigned(r % 2)}};
}
// inout = in * inout: `in` holds the operand of the lower ranks.
void matMul(void* in, void* inout, int* len, MPI_Datatype*) {
    Mat* x = static_cast<Mat*>(in);
    Mat* y = static_cast<Mat*>(inout);
    for (int k = 0; k < *len; ++k) y[k] = mul(x[k], y[k]);
}
Mat prodRange(int from, int to, long i) {  // mat(from, i) * ... * mat(to - 1, i)
    Mat acc{{1, 0, 0, 1}};
    for (int q = from; q < to; ++q) acc = mul(acc, mat(q, i));
    return acc;
}

class NonCommutative : public MpiModeTest {};

TEST_P(NonCommutative, RankOrder) {
    const Mode m = GetParam();
    MPI_Op op;
    MPI_Op_create(matMul, 0, &op);
    MPI_Datatype mt;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mt);
    MPI_Type_commit(&mt);
    const int n = 17;
    std::vector<Mat> s(n * size), r(n * size);
    auto prep = [&] {
        for (int i = 0; i < n * size; ++i) s[i] = mat(rank, i), r[i] = Mat{{7, 7, 7, 7}};
    };
    auto eq = [&](const Mat& got, const Mat& exp, const char* what, int i) {
        chk.truth(got == exp, std::string(what) + " [" + std::to_string(i) + "] not the rank-order product");
    };
    for (int root = 0; root < size; ++root)
        run(chk, m,
            {"Reduce(noncommutative)", [&] { return MPI_Reduce(s.data(), r.data(), n, mt, op, root, MPI_COMM_WORLD); },
             [&](MPI_Request* q) { return MPI_Ireduce(s.data(), r.data(), n, mt, op, root, MPI_COMM_WORLD, q); },
             [&](MPI_Request* q) {
                 return MPIX_Reduce_init(s.data(), r.data(), n, mt, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, q);
             }},
            prep, [&] {
                if (rank == root)
                    for (int i = 0; i < n; ++i) eq(r[i], prodRange(0, size, i), "reduce", i);
            });
    run(chk, m,
        {"Allreduce(noncommutative)", [&] { return MPI_Allreduce(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD); },
         [&](MPI_Request* q) { return MPI_Iallreduce(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD, q); },
         [&](MPI_Request* q) { return MPIX_Allreduce_init(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
        prep, [&] {
            for (int i = 0; i < n; ++i) eq(r[i], prodRange(0, size, i), "allreduce", i);
        });
    run(chk, m,
        {"Scan(noncommutative)", [&] { return MPI_Scan(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD); },
         [&](MPI_Request* q) { return MPI_Iscan(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD, q); },
         [&](MPI_Request* q) { return MPIX_Scan_init(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
        prep, [&] {
            for (int i = 0; i < n; ++i) eq(r[i], prodRange(0, rank + 1, i), "scan", i);
        });
    run(chk, m,
        {"Exscan(noncommutative)", [&] { return MPI_Exscan(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD); },
         [&](MPI_Request* q) { return MPI_Iexscan(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD, q); },
         [&](MPI_Request* q) { return MPIX_Exscan_init(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD, MPI_INFO_NULL, q); }},
        prep, [&] {
            if (rank > 0)
                for (int i = 0; i < n; ++i) eq(r[i], prodRange(0, rank, i), "exscan", i);
        });
    run(chk, m,
        {"Reduce_scatter_block(noncommutative)",
         [&] { return MPI_Reduce_scatter_block(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD); },
         [&](MPI_Request* q) { return MPI_Ireduce_scatter_block(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD, q); },
         [&](MPI_Request* q) {
             return MPIX_Reduce_scatter_block_init(s.data(), r.data(), n, mt, op, MPI_COMM_WORLD, MPI_INFO_NULL, q);
         }},
        prep, [&] {
            for (int i = 0; i < n; ++i) eq(r[i], prodRange(0, size, rank * n + i), "reduce_scatter_block", i);
        });
    MPI_Type_free(&mt);
    MPI_Op_free(&op);
}

INSTANTIATE_TEST_SUITE_P(M, NonCommutative,
                         ::testing::Values(Mode::Blocking, Mode::Nonblocking, Mode::Persistent), modeParamName);

// ---- bitwise-identical double sums ----
class Bitwise : public MpiTest {};

TEST_F(Bitwise, DoubleSumsRepeat) {
    const int n = 64, reps = 20;
    std::vector<double> s(n), first(n), r(n);
    for (int i = 0; i < n; ++i) {
        const double mag[3] = {1e16, 1.0, -1e16};
        s[i] = mag[(rank + i) % 3] * (1.0 + 1e-3 * i) + 0.1 * rank;
    }
    for (int it = 0; it < reps; ++it) {
        if (!chk.ok(MPI_Allreduce(s.data(), r.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce double"))
            break;
        if (it == 0) first = r;
        else if (std::memcmp(first.data(), r.data(), n * sizeof(double)) != 0)
            chk.fail("allreduce of doubles differs bitwise between repetition 0 and " + std::to_string(it));
    }
    // Every rank must hold the same bits: compare with rank 0 point-to-point.
    if (rank == 0) {
        std::vector<double> other(n);
        for (int q = 1; q < size; ++q) {
            MPI_Recv(other.data(), n, MPI_DOUBLE, q, 31200, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (std::memcmp(other.data(), first.data(), n * sizeof(double)) != 0)
                chk.fail("allreduce of doubles: rank " + std::to_string(q) + " holds different bits than rank 0");
        }
    } else {
        MPI_Send(first.data(), n, MPI_DOUBLE, 0, 31200, MPI_COMM_WORLD);
    }
}

// ---- many collectives in flight ----
class Concurrency : public MpiTest {};

TEST_F(Concurrency, FortyInFlightOneComm) {
    const int k = 40, n = 50;
    std::vector<std::vector<int>> sb(k, std::vector<int>(n * size)), rb(k, std::vector<int>(n * size, -1));
    std::vector<MPI_Request> req(k, MPI_REQUEST_NULL);
    std::vector<bool> started(k, false);
    for (int j = 0; j < k; ++j) {
        for (int i = 0; i < n * size; ++i) sb[j][i] = val(rank, i + j);
        int rc = MPI_SUCCESS;
        const int root = j % size;
        switch (j % 6) {
            case 0:
                if (rank == root) rb[j] = sb[j];
                rc = MPI_Ibcast(rb[j].data(), n, MPI_INT, root, MPI_COMM_WORLD, &req[j]);
                break;
            case 1: rc = MPI_Iallreduce(sb[j].data(), rb[j].data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[j]); break;
            case 2: rc = MPI_Iallgather(sb[j].data(), n, MPI_INT, rb[j].data(), n, MPI_INT, MPI_COMM_WORLD, &req[j]); break;
            case 3: rc = MPI_Ialltoall(sb[j].data(), n, MPI_INT, rb[j].data(), n, MPI_INT, MPI_COMM_WORLD, &req[j]); break;
            case 4: rc = MPI_Ireduce(sb[j].data(), rb[j].data(), n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &req[j]); break;
            case 5: rc = MPI_Ibarrier(MPI_COMM_WORLD, &req[j]); break;
        }
        started[j] = chk.ok(rc, ("in-flight start #" + std::to_string(j)).c_str());
    }
    for (int j = 0; j < k; ++j)
        if (started[j]) started[j] = chk.ok(MPI_Wait(&req[j], MPI_STATUS_IGNORE), ("in-flight wait #" + std::to_string(j)).c_str());
    for (int j = 0; j < k; ++j) {
        if (!started[j]) continue;
        const int root = j % size;
        const std::string w = "in-flight #" + std::to_string(j);
        for (int i = 0; i < n; ++i) {
            long sum = 0;
            for (int q = 0; q < size; ++q) sum += val(q, i + j);
            switch (j % 6) {
                case 0: chk.eq(rb[j][i], val(root, i + j), w + " ibcast", i); break;
                case 1: chk.eq(rb[j][i], sum, w + " iallreduce", i); break;
                case 2:
                    for (int q = 0; q < size; ++q) chk.eq(rb[j][q * n + i], val(q, i + j), w + " iallgather", q * n + i);
                    break;
                case 3:
                    for (int q = 0; q < size; ++q) chk.eq(rb[j][q * n + i], val(q, rank * n + i + j), w + " ialltoall", q * n + i);
                    break;
                case 4:
                    if (rank == root) chk.eq(rb[j][i], sum, w + " ireduce", i);
                    break;
            }
        }
    }
}

TEST_F(Concurrency, TwoCommunicators) {
    MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
    if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &a), "MPI_Comm_dup")) return;
    if (!chk.ok(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &b), "MPI_Comm_split")) {
        MPI_Comm_free(&a);
        return;
    }
    int bs = 0, br = 0;
    MPI_Comm_size(b, &bs);
    MPI_Comm_rank(b, &br);
    const int n = 200, k = 8;
    std::vector<std::vector<int>> x(k, std::vector<int>(n)), y(k, std::vector<int>(n));
    std::vector<MPI_Request> req(2 * k, MPI_REQUEST_NULL);
    std::vector<bool> ok(2 * k, false);
    for (int j = 0; j < k; ++j) {
        // On a: allreduce of world ranks' values; on b: bcast from b's rank j % bs.
        for (int i = 0; i < n; ++i) x[j][i] = val(rank, i + j), y[j][i] = br == j % bs ? val(rank, i + j) : -1;
        ok[2 * j] = chk.ok(MPI_Iallreduce(MPI_IN_PLACE, x[j].data(), n, MPI_INT, MPI_SUM, a, &req[2 * j]), "Iallreduce on dup");
        ok[2 * j + 1] = chk.ok(MPI_Ibcast(y[j].data(), n, MPI_INT, j % bs, b, &req[2 * j + 1]), "Ibcast on split");
    }
    for (int j = 0; j < 2 * k; ++j)
        if (ok[j]) ok[j] = chk.ok(MPI_Wait(&req[j], MPI_STATUS_IGNORE), "wait (two communicators)");
    // Rank (in b) j % bs of the split (color rank % 2, reversed keys) has world rank:
    for (int j = 0; j < k; ++j) {
        // b's ranks are the world ranks of my parity in decreasing order.
        std::vector<int> members;
        for (int q = size - 1; q >= 0; --q)
            if (q % 2 == rank % 2) members.push_back(q);
        const int broot = members[j % bs];
        for (int i = 0; i < n; ++i) {
            long sum = 0;
            for (int q = 0; q < size; ++q) sum += val(q, i + j);
            if (ok[2 * j]) chk.eq(x[j][i], sum, "allreduce on dup", i);
            if (ok[2 * j + 1]) chk.eq(y[j][i], val(broot, i + j), "bcast on split", i);
        }
    }
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

// ---- large messages: many segments (run with coll_hieragg_segment_size=4096 too) ----
class Large : public MpiTest {};

TEST_F(Large, BcastAllreduceAllgatherAlltoall) {
    const int n = 300000;  // 1.2 MB of ints
    std::vector<int> b(n);
    for (int root : {0, size - 1}) {
        for (int i = 0; i < n; ++i) b[i] = rank == root ? val(root, i) : -1;
        if (chk.ok(MPI_Bcast(b.data(), n, MPI_INT, root, MPI_COMM_WORLD), "large MPI_Bcast"))
            for (int i = 0; i < n; ++i) chk.eq(b[i], val(root, i), "large bcast", i);
    }
    std::vector<int> s(n), r(n, -1);
    for (int i = 0; i < n; ++i) s[i] = val(rank, i);
    if (chk.ok(MPI_Allreduce(s.data(), r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "large MPI_Allreduce"))
        for (int i = 0; i < n; ++i) {
            long e = 0;
            for (int q = 0; q < size; ++q) e += val(q, i);
            chk.eq(r[i], e, "large allreduce", i);
        }
    std::fill(r.begin(), r.end(), -1);
    if (chk.ok(MPI_Reduce(s.data(), r.data(), n, MPI_INT, MPI_MAX, size / 2, MPI_COMM_WORLD), "large MPI_Reduce") &&
        rank == size / 2)
        for (int i = 0; i < n; ++i) chk.eq(r[i], val(size - 1, i), "large reduce MAX", i);
    const int g = 40000;
    std::vector<int> ga(g * size, -1);
    if (chk.ok(MPI_Allgather(s.data(), g, MPI_INT, ga.data(), g, MPI_INT, MPI_COMM_WORLD), "large MPI_Allgather"))
        for (int q = 0; q < size; ++q)
            for (int i = 0; i < g; ++i) chk.eq(ga[q * g + i], val(q, i), "large allgather", q * g + i);
    const int t = 20000;
    std::vector<int> as(t * size), ar(t * size, -1);
    for (int i = 0; i < t * size; ++i) as[i] = val(rank, i);
    if (chk.ok(MPI_Alltoall(as.data(), t, MPI_INT, ar.data(), t, MPI_INT, MPI_COMM_WORLD), "large MPI_Alltoall"))
        for (int q = 0; q < size; ++q)
            for (int i = 0; i < t; ++i) chk.eq(ar[q * t + i], val(q, rank * t + i), "large alltoall", q * t + i);
}

// Rendezvous-sized reduce_scatter(_block) and allgatherv (the leaders' rows pulse and segment
// them): uneven counts with zeros, in place too.
TEST_F(Large, ReduceScatterAllgatherv) {
    const int k = 30000;
    std::vector<int> s(static_cast<size_t>(k) * size), r(static_cast<size_t>(k) * size);
    for (bool inplace : {false, true}) {
        for (size_t i = 0; i < s.size(); ++i) s[i] = val(rank, static_cast<int>(i));
        std::fill(r.begin(), r.end(), -1);
        if (inplace) r = s;
        if (chk.ok(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : s.data(), r.data(), k, MPI_INT, MPI_SUM,
                                            MPI_COMM_WORLD), "large MPI_Reduce_scatter_block"))
            for (int i = 0; i < k; ++i) {
                long e = 0;
                for (int q = 0; q < size; ++q) e += val(q, rank * k + i);
                chk.eq(r[i], e, "large reduce_scatter_block", i);
            }
    }
    std::vector<int> counts(size), displs(size);
    int total = 0;
    for (int q = 0; q < size; ++q) counts[q] = (q % 3) * k / 2, displs[q] = total, total += counts[q];
    std::vector<int> out(total + 1, -1);
    for (size_t i = 0; i < s.size(); ++i) s[i] = val(rank, static_cast<int>(i));
    if (chk.ok(MPI_Reduce_scatter(s.data(), out.data(), counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD),
               "large MPI_Reduce_scatter"))
        for (int i = 0; i < counts[rank]; ++i) {
            long e = 0;
            for (int q = 0; q < size; ++q) e += val(q, displs[rank] + i);
            chk.eq(out[i], e, "large reduce_scatter", i);
        }
    std::fill(out.begin(), out.end(), -1);
    if (chk.ok(MPI_Allgatherv(s.data(), counts[rank], MPI_INT, out.data(), counts.data(), displs.data(), MPI_INT,
                              MPI_COMM_WORLD), "large MPI_Allgatherv"))
        for (int q = 0; q < size; ++q)
            for (int i = 0; i < counts[q]; ++i) chk.eq(out[displs[q] + i], val(q, i), "large allgatherv", displs[q] + i);
    chk.eq(out[total], -1, "large allgatherv wrote past the end", total);
}

}  // namespace
