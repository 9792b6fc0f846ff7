// The reproducible accumulator: the same multiset gives the same bits in any
// order and grouping, and equals an independent exact reference (__float128
// summation, exact for the ranges used, rounded once) where the accumulator
// is exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "hieragg/ReproducibleSum.hpp"

using namespace hieragg::repro;

namespace {

uint64_t bitsOf(double x) {
    uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}
uint32_t bitsOf(float x) {
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

Accumulator leaf(double x) {
    Accumulator a = emptyAccumulator();
    add(a, x);
    return a;
}

// Sums `v` by merging single-value accumulators in a random tree after a random shuffle.
Accumulator randomTree(std::vector<double> v, std::mt19937_64& rng) {
    std::shuffle(v.begin(), v.end(), rng);
    std::vector<Accumulator> pool;
    for (double x : v) pool.push_back(leaf(x));
    if (pool.empty()) return emptyAccumulator();
    while (pool.size() > 1) {
        std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
        size_t i = pick(rng), j = pick(rng);
        if (i == j) continue;
        merge(pool[i], pool[j]);
        pool.erase(pool.begin() + static_cast<ptrdiff_t>(j));
    }
    return pool[0];
}

Accumulator sequential(const std::vector<double>& v) {
    Accumulator a = emptyAccumulator();
    for (double x : v) add(a, x);
    return a;
}

// Independent reference: exact in __float128 when the values span < 113 - log2(n) bits.
double referenceDouble(std::vector<double> v) {
    std::sort(v.begin(), v.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
    __float128 s = 0;
    for (double x : v) s += x;
    return static_cast<double>(s);
}
float referenceFloat(std::vector<float> v) {
    __float128 s = 0;
    for (float x : v) s += x;
    return static_cast<float>(s);
}

// n values with 53-bit mantissas and binary exponents in [lo, hi], random signs.
std::vector<double> randomValues(size_t n, int lo, int hi, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> mant(1.0, 2.0);
    std::uniform_int_distribution<int> ex(lo, hi);
    std::bernoulli_distribution sign(0.5);
    std::vector<double> v(n);
    for (auto& x : v) x = (sign(rng) ? -1 : 1) * std::ldexp(mant(rng), ex(rng));
    return v;
}

void expectOrderIndependent(const std::vector<double>& v, std::mt19937_64& rng) {
    const uint64_t want = bitsOf(toDouble(sequential(v)));
    for (int t = 0; t < 20; ++t) ASSERT_EQ(bitsOf(toDouble(randomTree(v, rng))), want) << "trial " << t;
}

}  // namespace

TEST(ReproducibleSum, AccumulatorIs32Bytes) { EXPECT_EQ(sizeof(Accumulator), 32u); }

TEST(ReproducibleSum, AdversarialCancellationIsExactInEveryOrder) {
    std::vector<double> v = {1e16, 1.0, -1e16};
    std::sort(v.begin(), v.end());
    bool naiveDiffers = false;
    do {
        EXPECT_EQ(bitsOf(toDouble(sequential(v))), bitsOf(1.0));
        if ((v[0] + v[1]) + v[2] != 1.0) naiveDiffers = true;
    } while (std::next_permutation(v.begin(), v.end()));
    EXPECT_TRUE(naiveDiffers) << "the input should defeat plain left-to-right summation";
    // Two ones lost between the giants by naive summation: exact answer 2.
    std::vector<double> w = {1e16, 1.0, -1e16, 1.0};
    std::mt19937_64 rng(7);
    for (int t = 0; t < 20; ++t) EXPECT_EQ(toDouble(randomTree(w, rng)), 2.0);
}

TEST(ReproducibleSum, MatchesExactReferenceWhereExact) {
    std::mt19937_64 rng(42);
    for (int t = 0; t < 200; ++t) {
        // Exponent spread 10 + 53 mantissa bits fit the 64 bits kept below the largest value.
        auto v = randomValues(1 + t % 64, -5 + t % 7, 5 + t % 7, rng);
        const double got = toDouble(randomTree(v, rng));
        ASSERT_EQ(bitsOf(got), bitsOf(referenceDouble(v))) << "trial " << t;
    }
}

TEST(ReproducibleSum, WideRangesAreOrderIndependentAndAccurate) {
    std::mt19937_64 rng(3);
    for (int t = 0; t < 50; ++t) {
        auto v = randomValues(100, -300, 300, rng);
        expectOrderIndependent(v, rng);
        // Error bound: n * 2^-64 * max|x| (dropped windows) plus half an ulp (one rounding).
        double maxAbs = 0;
        for (double x : v) maxAbs = std::max(maxAbs, std::fabs(x));
        __float128 exact = 0;
        for (double x : v) exact += x;  // not exact here, but far more precise than the bound
        const double got = toDouble(sequential(v));
        const double err = static_cast<double>(std::fabs(static_cast<double>(exact - got)));
        EXPECT_LE(err, 100 * std::ldexp(maxAbs, -64) + std::ldexp(std::fabs(got), -53));
    }
}

TEST(ReproducibleSum, RoundsOnceToNearestEven) {
    EXPECT_EQ(toDouble(sequential({1.0, std::ldexp(1.0, -53)})), 1.0);  // tie -> even
    EXPECT_EQ(toDouble(sequential({1.0 + std::ldexp(1.0, -52), std::ldexp(1.0, -53)})),
              1.0 + std::ldexp(1.0, -51));                                // tie -> even (up)
    EXPECT_EQ(toDouble(sequential({1.0, std::ldexp(1.0, -53), std::ldexp(1.0, -60)})),
              1.0 + std::ldexp(1.0, -52));                                // above the tie
    EXPECT_EQ(toDouble(sequential({1.0, std::ldexp(-1.0, -54)})), 1.0);  // tie below 1 -> even
    EXPECT_EQ(toDouble(sequential({1.0, std::ldexp(-1.0, -54), std::ldexp(-1.0, -60)})),
              1.0 - std::ldexp(1.0, -53));                                // below the tie
}

TEST(ReproducibleSum, Subnormals) {
    const double tiny = std::numeric_limits<double>::denorm_min();
    std::vector<double> v = {tiny, 3 * tiny, -tiny, DBL_MIN, -DBL_MIN / 2, 1000 * tiny};
    std::mt19937_64 rng(5);
    expectOrderIndependent(v, rng);
    EXPECT_EQ(bitsOf(toDouble(sequential(v))), bitsOf(referenceDouble(v)));
    EXPECT_EQ(toDouble(sequential({tiny, tiny})), 2 * tiny);
    EXPECT_EQ(bitsOf(toDouble(sequential({tiny, -tiny}))), bitsOf(0.0));
    // Float subnormals round once from the exact sum.
    const float ftiny = std::numeric_limits<float>::denorm_min();
    std::vector<float> f = {ftiny, FLT_MIN, -ftiny * 3, FLT_MIN / 4};
    Accumulator a = emptyAccumulator();
    for (float x : f) add(a, x);
    EXPECT_EQ(bitsOf(toFloat(a)), bitsOf(referenceFloat(f)));
}

TEST(ReproducibleSum, SignedZeros) {
    EXPECT_EQ(bitsOf(toDouble(emptyAccumulator())), bitsOf(-0.0));  // neutral element
    EXPECT_EQ(bitsOf(toDouble(sequential({-0.0, -0.0}))), bitsOf(-0.0));
    EXPECT_EQ(bitsOf(toDouble(sequential({-0.0, 0.0}))), bitsOf(0.0));
    EXPECT_EQ(bitsOf(toDouble(sequential({0.0, -0.0}))), bitsOf(0.0));
    EXPECT_EQ(bitsOf(toDouble(sequential({-1.0, 1.0}))), bitsOf(0.0));
    EXPECT_EQ(bitsOf(toDouble(sequential({-1.0, -0.0, 1.0}))), bitsOf(0.0));
    EXPECT_EQ(bitsOf(toDouble(sequential({-1.0, -0.0}))), bitsOf(-1.0));
    EXPECT_EQ(bitsOf(toFloat(sequential({-0.0, -0.0}))), bitsOf(-0.0f));
    // +0.0 contributions change nothing unless every other contribution is -0.0.
    std::vector<double> v = {1e16, 1.0, -1e16, 0.0, 0.0, -0.0};
    EXPECT_EQ(bitsOf(toDouble(sequential(v))), bitsOf(1.0));
}

TEST(ReproducibleSum, InfinitiesAndNaNsFollowIeee) {
    const double inf = HUGE_VAL, nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(toDouble(sequential({inf, 1.0, -1e300})), inf);
    EXPECT_EQ(toDouble(sequential({-inf, -inf, 5.0})), -inf);
    EXPECT_TRUE(std::isnan(toDouble(sequential({inf, -inf}))));
    EXPECT_TRUE(std::isnan(toDouble(sequential({1.0, nan, 2.0}))));
    EXPECT_TRUE(std::isnan(toDouble(sequential({nan, inf}))));
    EXPECT_TRUE(std::isnan(toFloat(sequential({nan}))));
    EXPECT_EQ(toFloat(sequential({-inf})), -HUGE_VALF);
    // Overflow of the exact sum rounds to inf; cancelling giants do not overflow.
    EXPECT_EQ(toDouble(sequential({DBL_MAX, DBL_MAX})), inf);
    EXPECT_EQ(toDouble(sequential({-DBL_MAX, -DBL_MAX})), -inf);
    EXPECT_EQ(toDouble(sequential({DBL_MAX, DBL_MAX, -DBL_MAX})), DBL_MAX);
    EXPECT_EQ(toFloat(sequential({FLT_MAX, FLT_MAX})), HUGE_VALF);
    EXPECT_EQ(toFloat(sequential({FLT_MAX, FLT_MAX, -FLT_MAX})), FLT_MAX);
    // NaN results are one canonical quiet NaN, whatever the inputs' payloads.
    const double a = toDouble(sequential({inf, -inf})), b = toDouble(sequential({-nan, 1.0}));
    EXPECT_EQ(bitsOf(a), bitsOf(b));
}

TEST(ReproducibleSum, FloatsMatchExactReference) {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> ex(-20, 20);
    for (int t = 0; t < 200; ++t) {
        std::vector<float> f(1 + t % 40);
        for (auto& x : f) x = std::ldexp(u(rng), ex(rng));
        std::vector<double> d(f.begin(), f.end());
        const Accumulator acc = randomTree(d, rng);
        ASSERT_EQ(bitsOf(toFloat(acc)), bitsOf(referenceFloat(f))) << "trial " << t;
    }
}

TEST(ReproducibleSum, ArraysMergeInAnyOrder) {
    std::mt19937_64 rng(9);
    const size_t n = 257;
    std::vector<std::vector<double>> ranks(6);
    for (auto& r : ranks) r = randomValues(n, -40, 40, rng);
    auto sumInOrder = [&](std::vector<int> order) {
        std::vector<Accumulator> total(n), part(n);
        fromDoubles(ranks[order[0]].data(), n, total.data());
        for (size_t k = 1; k < order.size(); ++k) {
            fromDoubles(ranks[order[k]].data(), n, part.data());
            mergeAll(part.data(), total.data(), n);
        }
        std::vector<double> out(n);
        toDoubles(total.data(), n, out.data());
        return out;
    };
    std::vector<int> order = {0, 1, 2, 3, 4, 5};
    const auto want = sumInOrder(order);
    for (int t = 0; t < 10; ++t) {
        std::shuffle(order.begin(), order.end(), rng);
        const auto got = sumInOrder(order);
        ASSERT_EQ(std::memcmp(got.data(), want.data(), n * sizeof(double)), 0);
    }
    std::vector<float> f(n, 0.1f), fout(n);
    std::vector<Accumulator> fa(n);
    fromFloats(f.data(), n, fa.data());
    toFloats(fa.data(), n, fout.data());
    EXPECT_EQ(fout, f);
}

// Bins near their limit (2^31 contributions' worth) take the wide rounding path.
TEST(ReproducibleSum, RoundsHugeBinsExactly) {
    Accumulator a = emptyAccumulator();
    a.flags = kSawNotNegZero;
    a.top = 40;
    const int unit = 32 * (a.top - 2) - 1074;  // exponent of the lowest bin's bit 0
    a.bin[0] = (int64_t{1} << 62) + (int64_t{1} << 9);  // 2^126 + 2^73: a tie at 53 bits
    a.bin[1] = 0;
    a.bin[2] = 0;
    EXPECT_EQ(toDouble(a), std::ldexp(1.0, 126 + unit));  // tie -> even
    a.bin[2] = 1;                                          // just above the tie
    EXPECT_EQ(toDouble(a), std::ldexp(1.0 + std::ldexp(1.0, -52), 126 + unit));
    a.bin[0] = -a.bin[0];
    a.bin[2] = -1;
    EXPECT_EQ(toDouble(a), -std::ldexp(1.0 + std::ldexp(1.0, -52), 126 + unit));
    a.bin[1] = int64_t{3} << 40;  // a positive middle bin borrows from the negative top one
    a.bin[2] = 0;
    const __int128 exact = -((static_cast<__int128>(1) << 126) + (static_cast<__int128>(1) << 73)) +
                           (static_cast<__int128>(3) << 72);
    EXPECT_EQ(toDouble(a), std::ldexp(static_cast<double>(exact), unit));  // one rounding of the exact value
}
