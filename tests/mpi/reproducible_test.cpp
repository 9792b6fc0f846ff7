// coll_hieragg_reproducible=strong: MPI_SUM of doubles and floats equals, bit for
// bit, the exact sum of the whole multiset of contributions rounded once (the
// reference below: __float128 sums, exact for these inputs, plus IEEE's rules for
// inf, NaN and signed zeros), whatever the decomposition, root or process count.
// CTest runs these with --mca coll_hieragg_reproducible strong in a matrix of splits
// and process counts; elsewhere they are skipped (order mode promises less).
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "harness.hpp"

using namespace mpitest;

namespace {

bool strongMode() {
    const char* v = std::getenv("OMPI_MCA_coll_hieragg_reproducible");
    return v && std::strcmp(v, "strong") == 0;
}

// Contribution of rank r to element i (closed form; every rank can compute all of them).
// Patterns cycle with i % 8; per element, every finite value's bits lie within 64 bits
// below the largest one's top bit, where the accumulator is exact (and so is __float128).
double contribution(int r, long i, int np) {
    const long k = i / 8;
    switch (i % 8) {
    case 0:  // giants that cancel around small values: naive order loses the ones
        return r == 0 ? 1e16 : r == 1 ? -1e16 : r % 2 ? 1.0 : 1.0 + std::ldexp(1.0, -10);
    case 1: {  // mixed signs and magnitudes
        const double m = 1.0 + static_cast<double>((r * 7919 + k * 104729) % 1000003) / 1000003.0;
        return ((r + k) % 2 ? -1 : 1) * std::ldexp(m, static_cast<int>((r * 5 + k) % 11) - 5);
    }
    case 2:  // subnormals
        return ((r + k) % 3 ? 1 : -1) * std::numeric_limits<double>::denorm_min() * static_cast<double>(r * 31 + k + 1);
    case 3:  // signed zeros: all -0.0, or one +0.0 among them
        return (k % 2 && r == static_cast<int>(k % np)) ? 0.0 : -0.0;
    case 4:  // +inf on one rank; every other k also -inf on another rank (-> NaN)
        if (r == static_cast<int>(k % np)) return HUGE_VAL;
        if (k % 2 && r == static_cast<int>((k + 1) % np)) return -HUGE_VAL;
        return 1.0 + r;
    case 5:  // NaN on one rank
        return r == static_cast<int>(k % np) ? std::numeric_limits<double>::quiet_NaN() : -2.5 * r;
    case 6:  // many half-ulps of 1.0: round-to-nearest-even of the exact sum
        return r == 0 ? 1.0 : std::ldexp(1.0, -53) * (1 + (r + k) % 2);
    default:  // only ranks 0 and 1 contribute; extra ranks add +0.0 (the same result at any np)
        return r == 0 ? 0.1 * static_cast<double>(k + 1) : r == 1 ? std::ldexp(0.3 * static_cast<double>(k + 3), -8) : 0.0;
    }
}

// IEEE sum of the multiset {c(0..last)} rounded once from the exact value.
template <class T>
T expected(long i, int first, int last, int np, T (*conv)(double)) {
    bool nan = false, pinf = false, ninf = false, allNegZero = true;
    __float128 s = 0;
    for (int r = first; r <= last; ++r) {
        const T x = conv(contribution(r, i, np));
        if (std::isnan(x)) nan = true;
        else if (std::isinf(x)) (x > 0 ? pinf : ninf) = true;
        else s += x;
        if (!(x == 0 && std::signbit(x))) allNegZero = false;
    }
    if (nan || (pinf && ninf)) return std::numeric_limits<T>::quiet_NaN();
    if (pinf) return std::numeric_limits<T>::infinity();
    if (ninf) return -std::numeric_limits<T>::infinity();
    if (s == 0) return allNegZero ? T(-0.0) : T(0.0);
    return static_cast<T>(s);
}

double asDouble(double x) { return x; }
float asFloat(double x) { return static_cast<float>(x); }

template <class T>
bool sameBits(T a, T b) {
    if (std::isnan(a) && std::isnan(b)) return true;  // NaN payloads are not promised
    return std::memcmp(&a, &b, sizeof a) == 0;
}

template <class T>
void checkVector(Check& chk, const std::vector<T>& got, long offset, int first, int last, int np,
                 T (*conv)(double), const std::string& what) {
    long bad = 0;
    for (size_t j = 0; j < got.size(); ++j) {
        const T want = expected<T>(offset + static_cast<long>(j), first, last, np, conv);
        if (!sameBits(got[j], want) && bad++ < 3) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "[%zu]: got %a, expected %a", j, (double)got[j], (double)want);
            chk.fail(what + buf);
        }
    }
    if (bad > 3) chk.fail(what + ": " + std::to_string(bad) + " elements differ");
}

class Reproducible : public MpiTest {
protected:
    void SetUp() override {
        if (!strongMode()) GTEST_SKIP() << "needs --mca coll_hieragg_reproducible strong";
    }
};

template <class T>
void runAllKinds(Check& chk, MPI_Datatype dt, T (*conv)(double), const char* tname) {
    const int np = worldSize(), rank = worldRank();
    const long n = 64;
    std::vector<T> s(n), r(n);
    for (long i = 0; i < n; ++i) s[i] = conv(contribution(rank, i, np));
    const std::string t = tname;

    if (chk.ok(MPI_Allreduce(s.data(), r.data(), n, dt, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce"))
        checkVector(chk, r, 0, 0, np - 1, np, conv, t + " allreduce");
    r = s;
    if (chk.ok(MPI_Allreduce(MPI_IN_PLACE, r.data(), n, dt, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce in place"))
        checkVector(chk, r, 0, 0, np - 1, np, conv, t + " allreduce in place");
    for (int root = 0; root < np; ++root) {
        std::fill(r.begin(), r.end(), T(7));
        if (chk.ok(MPI_Reduce(s.data(), r.data(), n, dt, MPI_SUM, root, MPI_COMM_WORLD), "MPI_Reduce") && rank == root)
            checkVector(chk, r, 0, 0, np - 1, np, conv, t + " reduce root " + std::to_string(root));
    }
    MPI_Request q;
    if (chk.ok(MPI_Iallreduce(s.data(), r.data(), n, dt, MPI_SUM, MPI_COMM_WORLD, &q), "MPI_Iallreduce") &&
        chk.ok(MPI_Wait(&q, MPI_STATUS_IGNORE), "MPI_Wait"))
        checkVector(chk, r, 0, 0, np - 1, np, conv, t + " iallreduce");

    // reduce_scatter_block: block b holds elements b*m .. b*m+m-1 of the n*np vector.
    const long m = 24;
    std::vector<T> big(m * np), part(m);
    for (long i = 0; i < m * np; ++i) big[i] = conv(contribution(rank, i, np));
    if (chk.ok(MPI_Reduce_scatter_block(big.data(), part.data(), m, dt, MPI_SUM, MPI_COMM_WORLD),
               "MPI_Reduce_scatter_block"))
        checkVector(chk, part, rank * m, 0, np - 1, np, conv, t + " reduce_scatter_block");
    // reduce_scatter with uneven counts (rank r gets r+3 elements).
    std::vector<int> counts(np);
    long total = 0, mine = 0;
    for (int b = 0; b < np; ++b) {
        counts[b] = b + 3;
        if (b < rank) mine += counts[b];
        total += counts[b];
    }
    std::vector<T> all(total), got(counts[rank]);
    for (long i = 0; i < total; ++i) all[i] = conv(contribution(rank, i, np));
    if (chk.ok(MPI_Reduce_scatter(all.data(), got.data(), counts.data(), dt, MPI_SUM, MPI_COMM_WORLD),
               "MPI_Reduce_scatter"))
        checkVector(chk, got, mine, 0, np - 1, np, conv, t + " reduce_scatter");
    // scan / exscan: the multiset of ranks 0..rank (0..rank-1).
    if (chk.ok(MPI_Scan(s.data(), r.data(), n, dt, MPI_SUM, MPI_COMM_WORLD), "MPI_Scan"))
        checkVector(chk, r, 0, 0, rank, np, conv, t + " scan");
    if (chk.ok(MPI_Exscan(s.data(), r.data(), n, dt, MPI_SUM, MPI_COMM_WORLD), "MPI_Exscan") && rank > 0)
        checkVector(chk, r, 0, 0, rank - 1, np, conv, t + " exscan");
}

}  // namespace

TEST_F(Reproducible, DoubleSumsAreTheRoundedExactSum) { runAllKinds<double>(chk, MPI_DOUBLE, asDouble, "double"); }

TEST_F(Reproducible, FloatSumsAreTheRoundedExactSum) { runAllKinds<float>(chk, MPI_FLOAT, asFloat, "float"); }

// Pattern 7 has the same multiset at every process count: its bits are a constant.
TEST_F(Reproducible, ExtraZeroRanksChangeNothing) {
    const int np = worldSize();
    const long n = 64;
    std::vector<double> s(n), r(n);
    for (long i = 0; i < n; ++i) s[i] = contribution(rank, i, np);
    if (!chk.ok(MPI_Allreduce(s.data(), r.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce")) return;
    for (long i = 7; i < n; i += 8) {
        const long k = i / 8;
        const double want = static_cast<double>(static_cast<__float128>(0.1 * static_cast<double>(k + 1)) +
                                                static_cast<__float128>(std::ldexp(0.3 * static_cast<double>(k + 3), -8)));
        if (!sameBits(r[i], want)) chk.fail("pattern 7 element " + std::to_string(i) + " depends on np");
    }
}

// Many pulses: accumulators of a long vector travel segment by segment.
TEST_F(Reproducible, LongVectorAcrossSegments) {
    const int np = worldSize();
    const long n = 20000;
    std::vector<double> s(n), r(n);
    for (long i = 0; i < n; ++i) s[i] = contribution(rank, i, np);
    if (chk.ok(MPI_Allreduce(s.data(), r.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce long"))
        checkVector(chk, r, 0, 0, np - 1, np, asDouble, "long allreduce");
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, np - rank, &half);  // reversed order, other placement
    int hr = 0, hn = 1;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    std::fill(r.begin(), r.end(), 0.0);
    if (chk.ok(MPI_Reduce(s.data(), r.data(), n, MPI_DOUBLE, MPI_SUM, hn - 1, half), "MPI_Reduce on split") && hr == hn - 1) {
        // The multiset is the contributions of world ranks with the same parity.
        long bad = 0;
        for (long i = 0; i < n; ++i) {
            bool nan = false, pinf = false, ninf = false, allNeg = true;
            __float128 acc = 0;
            for (int w = rank % 2; w < np; w += 2) {
                const double x = contribution(w, i, np);
                if (std::isnan(x)) nan = true;
                else if (std::isinf(x)) (x > 0 ? pinf : ninf) = true;
                else acc += x;
                if (!(x == 0 && std::signbit(x))) allNeg = false;
            }
            const double want = (nan || (pinf && ninf)) ? NAN : pinf ? HUGE_VAL : ninf ? -HUGE_VAL
                                : acc == 0 ? (allNeg ? -0.0 : 0.0) : static_cast<double>(acc);
            if (!sameBits(r[i], want)) ++bad;
        }
        if (bad) chk.fail("reduce on a split communicator: " + std::to_string(bad) + " elements differ");
    }
    MPI_Comm_free(&half);
}

// Strong chains keep the component's start semantics: on a fresh communicator rank 0
// starts a long strong iallreduce (a chain of links), an ibcast, a short strong
// iallreduce and a persistent strong allreduce initialised before any call, and only
// then lets rank 1 start them. A start that waits for another rank (the identity
// exchange) hangs here; a call started while a chain runs must not take the numbers
// the chain reserved (its links start later, from the progress engine), or the
// messages of the two mix up and the bits below differ.
TEST_F(Reproducible, ChainStartsAreLocalOnFreshComm) {
    const int np = worldSize();
    if (np < 2) GTEST_SKIP() << "needs 2 ranks";
    MPI_Comm c;
    if (!chk.ok(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup")) return;
    const long n = 20000, m = 40;
    std::vector<double> s(n), r(n), shortR(m), pr(m);
    for (long i = 0; i < n; ++i) s[i] = contribution(rank, i, np);
    std::vector<int> b(5);
    MPI_Request pq = MPI_REQUEST_NULL;
    if (!chk.ok(MPIX_Allreduce_init(s.data(), pr.data(), m, MPI_DOUBLE, MPI_SUM, c, MPI_INFO_NULL, &pq),
                "MPIX_Allreduce_init")) {
        MPI_Comm_free(&c);
        return;
    }
    // Round 2: no token; rank 0 drives the chain alone for a while before its next
    // starts, so its later links start before the ibcast there and after it elsewhere.
    for (int round = 0; round < 3; ++round) {
        std::fill(r.begin(), r.end(), 7.0);
        std::fill(shortR.begin(), shortR.end(), 7.0);
        std::fill(pr.begin(), pr.end(), 7.0);
        for (int i = 0; i < 5; ++i) b[i] = rank == 0 ? 100 * round + i : -1;
        MPI_Request q[3];
        auto start = [&] {
            chk.ok(MPI_Iallreduce(s.data(), r.data(), n, MPI_DOUBLE, MPI_SUM, c, &q[0]), "MPI_Iallreduce long");
            if (round == 2 && rank == 0) {
                const double until = MPI_Wtime() + 0.2;
                int done = 0;
                while (!done && MPI_Wtime() < until) MPI_Test(&q[0], &done, MPI_STATUS_IGNORE);
                if (done) q[0] = MPI_REQUEST_NULL;
            }
            chk.ok(MPI_Ibcast(b.data(), 5, MPI_INT, 0, c, &q[1]), "MPI_Ibcast");
            chk.ok(MPI_Iallreduce(s.data(), shortR.data(), m, MPI_DOUBLE, MPI_SUM, c, &q[2]), "MPI_Iallreduce short");
            chk.ok(MPI_Start(&pq), "MPI_Start");
        };
        int token = round;
        if (round == 2) {
            start();
        } else if (rank == 0) {
            start();
            chk.ok(MPI_Send(&token, 1, MPI_INT, 1, 31300, MPI_COMM_WORLD), "MPI_Send");
        } else if (rank == 1) {
            chk.ok(MPI_Recv(&token, 1, MPI_INT, 0, 31300, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
            start();
        } else {
            start();
        }
        chk.ok(MPI_Waitall(3, q, MPI_STATUSES_IGNORE), "MPI_Waitall");
        chk.ok(MPI_Wait(&pq, MPI_STATUS_IGNORE), "MPI_Wait persistent");
        const std::string l = "round " + std::to_string(round) + ": ";
        checkVector(chk, r, 0, 0, np - 1, np, asDouble, l + "long iallreduce");
        checkVector(chk, shortR, 0, 0, np - 1, np, asDouble, l + "short iallreduce");
        checkVector(chk, pr, 0, 0, np - 1, np, asDouble, l + "persistent allreduce");
        for (int i = 0; i < 5; ++i) chk.eq(b[i], 100 * round + i, "ibcast", i);
    }
    MPI_Request_free(&pq);
    MPI_Comm_free(&c);
}
