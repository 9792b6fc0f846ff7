// Fitting of hieragg-tune (PolynomialFit.hpp): synthetic times from known
// polynomials must come back with their degree, space and coefficients.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "hieragg/hier/PerformanceFunction.hpp"
#include "hieragg/hier/PolynomialFit.hpp"

using namespace hieragg::hier;

namespace {
std::vector<double> sizes() {  // the tuner's default grid shape: powers of two
    std::vector<double> x;
    for (int e = 3; e <= 22; ++e) x.push_back(std::ldexp(1.0, e));
    return x;
}
}  // namespace

TEST(PerformanceFunction, EvaluatesLinearAndLogSpace) {
    PerformanceFunction f;
    f.degree = 2;
    f.coeffs = {3, 0.5, 0.25};
    f.rankCoeffs = {2};          // + 2 p
    f.subspaceCoeffs = {0, 1};   // + s^2
    EXPECT_DOUBLE_EQ(f.timeUs(4, 8, 3), 3 + 2 + 4 + 16 + 9);
    PerformanceFunction g;
    g.logSpace = true;
    g.degree = 1;
    g.coeffs = {std::log(5.0), 0.5};  // 5 * bytes^0.5
    EXPECT_NEAR(g.timeUs(10000, 1, 1), 500.0, 1e-9);
    EXPECT_NEAR(g.timeUs(0, 1, 1), 5.0, 1e-12);  // 0 bytes counts as 1 in log-space
    PerformanceFunction neg;
    neg.coeffs = {-5, 1};
    EXPECT_EQ(neg.timeUs(2, 1, 1), 0.0);  // never negative
}

TEST(PolynomialFit, LeastSquaresRecoversAQuarticExactly) {
    const std::vector<double> c = {7, -0.5, 3e-3, 2e-7, 1e-12};
    std::vector<double> x, y;
    for (double v = 0; v <= 4000; v += 250) {
        x.push_back(v);
        y.push_back(c[0] + c[1] * v + c[2] * v * v + c[3] * v * v * v + c[4] * v * v * v * v);
    }
    const std::vector<double> got = leastSquaresPolynomial(x, y, 4);
    ASSERT_EQ(got.size(), 5u);
    for (size_t i = 0; i < 5; ++i) EXPECT_NEAR(got[i], c[i], 1e-6 * std::fabs(c[i]) + 1e-12) << i;
}

TEST(PolynomialFit, ChoosesLinearSpaceQuadraticForAQuadratic) {
    std::vector<double> x = sizes(), y;
    for (double v : x) y.push_back(20 + 4e-3 * v + 1e-9 * v * v);
    const FitResult r = fitTimes(x, y);
    EXPECT_FALSE(r.function.logSpace) << r.why;
    EXPECT_EQ(r.function.degree, 2) << r.why;
    EXPECT_NEAR(r.function.coeffs[0], 20, 1e-3);
    EXPECT_NEAR(r.function.coeffs[1], 4e-3, 1e-8);
    EXPECT_NEAR(r.function.coeffs[2], 1e-9, 1e-13);
    EXPECT_LT(r.validationError, 1e-6);
}

TEST(PolynomialFit, ChoosesLinearForALine) {
    std::vector<double> x = sizes(), y;
    for (double v : x) y.push_back(3 + 2.5e-4 * v);
    const FitResult r = fitTimes(x, y);
    EXPECT_FALSE(r.function.logSpace) << r.why;
    EXPECT_EQ(r.function.degree, 1) << r.why;
    EXPECT_NEAR(r.function.coeffs[0], 3, 1e-6);
    EXPECT_NEAR(r.function.coeffs[1], 2.5e-4, 1e-12);
}

TEST(PolynomialFit, ChoosesLogSpaceForAPowerLaw) {
    std::vector<double> x = sizes(), y;
    for (double v : x) y.push_back(2.0 * std::pow(v, 0.6));  // ln y = ln 2 + 0.6 ln x
    const FitResult r = fitTimes(x, y);
    EXPECT_TRUE(r.function.logSpace) << r.why;
    EXPECT_EQ(r.function.degree, 1) << r.why;
    EXPECT_NEAR(r.function.coeffs[0], std::log(2.0), 1e-9);
    EXPECT_NEAR(r.function.coeffs[1], 0.6, 1e-9);
}

TEST(PolynomialFit, ChoosesLogSpaceCubicForALogCubic) {
    std::vector<double> x = sizes(), y;
    for (double v : x) {
        const double l = std::log(v);
        y.push_back(std::exp(1.0 - 0.2 * l + 0.03 * l * l + 0.002 * l * l * l));
    }
    const FitResult r = fitTimes(x, y);
    EXPECT_TRUE(r.function.logSpace) << r.why;
    EXPECT_EQ(r.function.degree, 3) << r.why;
    EXPECT_NEAR(r.function.coeffs[3], 0.002, 1e-7);
}

TEST(PolynomialFit, NoisyDataStaysClose) {
    // Deterministic +-2% ripple on a line: the fit must stay within a few percent.
    std::vector<double> x = sizes(), y;
    for (size_t i = 0; i < x.size(); ++i) y.push_back((10 + 1e-3 * x[i]) * (i % 2 ? 1.02 : 0.98));
    const FitResult r = fitTimes(x, y);
    for (double v : x) EXPECT_NEAR(r.function.timeUs(v, 1, 1) / (10 + 1e-3 * v), 1.0, 0.06) << v << " " << r.why;
}

TEST(PolynomialFit, RejectsTooFewOrNonPositivePoints) {
    EXPECT_THROW(fitTimes({1, 2}, {1, 2}), std::invalid_argument);
    EXPECT_THROW(fitTimes({1, 2, 4}, {1, 0, 2}), std::invalid_argument);
}
