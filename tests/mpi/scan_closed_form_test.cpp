// MPI_Scan and MPI_Exscan against closed forms of the inputs at the sizes the project
// benchmark times (8 B, 64 KiB) and one element past a 64 KiB pulse: blocking calls
// repeated (from the second on a repeat runs the compiled fast path, or the Task path
// where the schedule holds a pulse-sized temporary), MPI_IN_PLACE, a non-commutative op,
// a derived datatype with holes (through a user op: MPI's predefined ops take none) and
// count 0.
//
// Non-commutative operand: the affine map x -> a x + b as the matrix [[a, b], [0, 1]],
// stored as two unsigned ints {a, b}; the user op computes inout = in * inout (in holds
// the lower ranks' product). With a = 2 on every rank and b_q = 7 q + c, the rank-order
// product over ranks 0..k is [[2^(k+1), B], [0, 1]] with
//   B = sum_{q=0..k} 2^q b_q = 7 ((k - 1) 2^(k+1) + 2) + c (2^(k+1) - 1)
// (the reversed order gives sum 2^(k-q) b_q, another number whenever k > 0).
#include <cstdint>
#include <vector>

#include "harness.hpp"

using namespace mpitest;

namespace {

struct Affine {
    unsigned a, b;
};

void affineCompose(void* in, void* inout, int* len, MPI_Datatype*) {
    const Affine* x = static_cast<const Affine*>(in);
    Affine* y = static_cast<Affine*>(inout);
    for (int k = 0; k < *len; ++k) y[k] = Affine{x[k].a * y[k].a, x[k].a * y[k].b + x[k].b};
}

unsigned elementTerm(long i) { return static_cast<unsigned>(i % 13) + 1; }
Affine affineOf(int rank, long i) { return Affine{2u, 7u * static_cast<unsigned>(rank) + elementTerm(i)}; }
// The product of ranks 0..k (closed form above), unsigned arithmetic modulo 2^32 as the op's.
Affine affinePrefix(int k, long i) {
    const unsigned p = 1u << (k + 1), c = elementTerm(i);
    return Affine{p, 7u * (static_cast<unsigned>(k - 1) * p + 2u) + c * (p - 1u)};
}

// SUM operand of rank q, element i, and the prefix sum over ranks 0..k.
int sumOf(int q, long i) { return q + 1 + static_cast<int>(i % 11); }
int sumPrefix(int k, long i) { return (k + 1) * (k + 2) / 2 + (k + 1) * static_cast<int>(i % 11); }

class ScanClosedForm : public MpiTest {
protected:
    // 8 B, 64 KiB and one element past 64 KiB (two pulses at the default segment size).
    std::vector<int> countsOf(int elementBytes) const {
        return {8 / elementBytes, 65536 / elementBytes, 65536 / elementBytes + 1};
    }
};

TEST_F(ScanClosedForm, NonCommutativeAffineMapsInRankOrder) {
    MPI_Op op;
    MPI_Op_create(affineCompose, 0, &op);
    MPI_Datatype at;
    MPI_Type_contiguous(2, MPI_UNSIGNED, &at);
    MPI_Type_commit(&at);
    for (const int n : countsOf(static_cast<int>(sizeof(Affine)))) {
        const std::string l = "affine n=" + std::to_string(n);
        std::vector<Affine> s(n), r(n);
        for (int i = 0; i < n; ++i) s[i] = affineOf(rank, i);
        auto check = [&](const char* what, int upto) {
            long bad = 0;
            for (int i = 0; i < n; ++i) {
                const Affine want = affinePrefix(upto, i);
                if (r[i].a != want.a || r[i].b != want.b) {
                    if (!bad) chk.fail(l + " " + what + " [" + std::to_string(i) + "]: got {" + std::to_string(r[i].a) +
                                       ", " + std::to_string(r[i].b) + "}, expected {" + std::to_string(want.a) + ", " +
                                       std::to_string(want.b) + "}");
                    ++bad;
                }
            }
        };
        for (int call = 0; call < 3; ++call) {
            std::fill(r.begin(), r.end(), Affine{5, 5});
            if (chk.ok(MPI_Scan(s.data(), r.data(), n, at, op, MPI_COMM_WORLD), (l + " MPI_Scan").c_str()))
                check("scan", rank);
        }
        for (int call = 0; call < 3; ++call) {
            r = s;
            if (chk.ok(MPI_Scan(MPI_IN_PLACE, r.data(), n, at, op, MPI_COMM_WORLD), (l + " MPI_Scan in place").c_str()))
                check("scan in place", rank);
        }
        for (int call = 0; call < 3; ++call) {
            std::fill(r.begin(), r.end(), Affine{5, 5});
            if (chk.ok(MPI_Exscan(s.data(), r.data(), n, at, op, MPI_COMM_WORLD), (l + " MPI_Exscan").c_str()) &&
                rank > 0)
                check("exscan", rank - 1);
        }
    }
    MPI_Type_free(&at);
    MPI_Op_free(&op);
}

TEST_F(ScanClosedForm, PrefixSumsBlockingRepeatedAndInPlace) {
    for (const int n : countsOf(static_cast<int>(sizeof(int)))) {
        const std::string l = "sum n=" + std::to_string(n);
        std::vector<int> s(n), r(n);
        for (int i = 0; i < n; ++i) s[i] = sumOf(rank, i);
        auto check = [&](const char* what, int upto) {
            for (int i = 0; i < n; ++i)
                if (!chk.eq(r[i], sumPrefix(upto, i), l + " " + what, i)) break;
        };
        for (int call = 0; call < 3; ++call) {
            std::fill(r.begin(), r.end(), -1);
            if (chk.ok(MPI_Scan(s.data(), r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD), (l + " MPI_Scan").c_str()))
                check("scan", rank);
        }
        for (int call = 0; call < 3; ++call) {
            r = s;
            if (chk.ok(MPI_Scan(MPI_IN_PLACE, r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                       (l + " MPI_Scan in place").c_str()))
                check("scan in place", rank);
        }
        for (int call = 0; call < 3; ++call) {
            std::fill(r.begin(), r.end(), -1);
            if (chk.ok(MPI_Exscan(s.data(), r.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD), (l + " MPI_Exscan").c_str()) &&
                rank > 0)
                check("exscan", rank - 1);
        }
    }
}

// A sum over types().vec3 elements (3 ints at stride 2, extent 5 ints): predefined ops take
// no derived datatype (MPI), so a user op that adds the three ints of each element and
// leaves the holes alone.
void vec3Sum(void* in, void* inout, int* len, MPI_Datatype*) {
    const int* x = static_cast<const int*>(in);
    int* y = static_cast<int*>(inout);
    for (int e = 0; e < *len; ++e)
        for (int k : {0, 2, 4}) y[5 * e + k] += x[5 * e + k];
}

// The holes of the receive buffer must keep their values.
TEST_F(ScanClosedForm, DerivedDatatypeKeepsItsHoles) {
    const MPI_Datatype v = types().vec3;
    MPI_Op sum;
    MPI_Op_create(vec3Sum, 1, &sum);
    for (const int n : {1, 4370}) {  // 12 B and ~51 KiB of data (85 KiB with the holes)
        const std::string l = "vec3 n=" + std::to_string(n);
        const long ints = 5L * n;
        std::vector<int> s(ints), r(ints);
        auto isData = [](long j) { return j % 5 % 2 == 0; };
        for (long j = 0; j < ints; ++j) s[j] = sumOf(rank, j);
        for (int call = 0; call < 2; ++call) {
            std::fill(r.begin(), r.end(), -3);
            if (chk.ok(MPI_Scan(s.data(), r.data(), n, v, sum, MPI_COMM_WORLD), (l + " MPI_Scan").c_str()))
                for (long j = 0; j < ints; ++j)
                    if (!chk.eq(r[j], isData(j) ? sumPrefix(rank, j) : -3, l + " scan", j)) break;
        }
    }
    MPI_Op_free(&sum);
}

TEST_F(ScanClosedForm, CountZeroLeavesTheBuffersAlone) {
    std::vector<int> s(4, 9), r(4, -2);
    for (int call = 0; call < 2; ++call) {
        chk.ok(MPI_Scan(s.data(), r.data(), 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Scan count 0");
        chk.ok(MPI_Exscan(s.data(), r.data(), 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Exscan count 0");
        chk.ok(MPI_Scan(MPI_IN_PLACE, r.data(), 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Scan in place count 0");
    }
    for (int i = 0; i < 4; ++i) chk.eq(r[i], -2, "count 0 wrote rbuf", i);
}

}  // namespace
