#include "hieragg/hier/PolynomialFit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace hieragg::hier {

namespace {

// Solves min |A c - y| by Householder QR (A is rows x cols, row-major); small systems only.
std::vector<double> solveLeastSquares(std::vector<double> a, std::vector<double> y, size_t rows, size_t cols) {
    for (size_t j = 0; j < cols; ++j) {
        double norm = 0;
        for (size_t i = j; i < rows; ++i) norm += a[i * cols + j] * a[i * cols + j];
        norm = std::sqrt(norm);
        if (norm == 0) throw std::invalid_argument("least squares: columns are dependent (too few distinct sizes)");
        const double alpha = a[j * cols + j] > 0 ? -norm : norm;
        std::vector<double> v(rows, 0.0);
        for (size_t i = j; i < rows; ++i) v[i] = a[i * cols + j];
        v[j] -= alpha;
        double vv = 0;
        for (size_t i = j; i < rows; ++i) vv += v[i] * v[i];
        if (vv == 0) continue;
        for (size_t k = j; k < cols; ++k) {
            double d = 0;
            for (size_t i = j; i < rows; ++i) d += v[i] * a[i * cols + k];
            d = 2 * d / vv;
            for (size_t i = j; i < rows; ++i) a[i * cols + k] -= d * v[i];
        }
        double d = 0;
        for (size_t i = j; i < rows; ++i) d += v[i] * y[i];
        d = 2 * d / vv;
        for (size_t i = j; i < rows; ++i) y[i] -= d * v[i];
    }
    std::vector<double> c(cols, 0.0);
    for (size_t j = cols; j-- > 0;) {
        double s = y[j];
        for (size_t k = j + 1; k < cols; ++k) s -= a[j * cols + k] * c[k];
        if (std::fabs(a[j * cols + j]) < 1e-300) throw std::invalid_argument("least squares: singular system");
        c[j] = s / a[j * cols + j];
    }
    return c;
}

const char* degreeName(int d) {
    static const char* names[] = {"constant", "linear", "quadratic", "cubic", "quartic"};
    return d >= 0 && d <= 4 ? names[d] : "polynomial";
}

}  // namespace

std::vector<double> leastSquaresPolynomial(const std::vector<double>& x, const std::vector<double>& y, int degree,
                                           const std::vector<double>& weights) {
    const size_t n = x.size(), cols = static_cast<size_t>(degree) + 1;
    if (n != y.size() || n < cols) throw std::invalid_argument("least squares: too few points for the degree");
    // Fit in t = (x - shift) / scale (well conditioned even for x^4 of megabytes), then expand back.
    const double lo = *std::min_element(x.begin(), x.end()), hi = *std::max_element(x.begin(), x.end());
    const double shift = (lo + hi) / 2, scale = std::max((hi - lo) / 2, 1e-300);
    std::vector<double> a(n * cols), wy(n);
    for (size_t i = 0; i < n; ++i) {
        const double w = weights.empty() ? 1.0 : weights[i];
        const double t = (x[i] - shift) / scale;
        double p = w;
        for (size_t j = 0; j < cols; ++j, p *= t) a[i * cols + j] = p;
        wy[i] = w * y[i];
    }
    const std::vector<double> ct = solveLeastSquares(a, wy, n, cols);
    // sum_j ct_j ((x - shift)/scale)^j = sum_i c_i x^i: binomial expansion.
    std::vector<double> c(cols, 0.0);
    for (size_t j = 0; j < cols; ++j) {
        double binom = 1;  // C(j, i)
        for (size_t i = 0; i <= j; ++i) {
            c[i] += ct[j] * binom * std::pow(-shift, static_cast<double>(j - i)) / std::pow(scale, static_cast<double>(j));
            binom = binom * static_cast<double>(j - i) / static_cast<double>(i + 1);
        }
    }
    return c;
}

FitResult fitTimes(const std::vector<double>& bytes, const std::vector<double>& us) {
    const size_t n = bytes.size();
    if (n != us.size() || n < 3) throw std::invalid_argument("fit: needs at least 3 measured points");
    for (double t : us)
        if (!(t > 0) || !std::isfinite(t)) throw std::invalid_argument("fit: times must be positive");
    FitResult best;
    best.validationError = std::numeric_limits<double>::infinity();
    std::string tried;
    for (int logSpace = 0; logSpace <= 1; ++logSpace) {
        std::vector<double> x(n), y(n);
        for (size_t i = 0; i < n; ++i) {
            x[i] = logSpace ? std::log(std::max(bytes[i], 1.0)) : bytes[i];
            y[i] = logSpace ? std::log(us[i]) : us[i];
        }
        for (int d = 1; d <= 4 && n >= static_cast<size_t>(d) + 2; ++d) {
            // Leave-one-out: fit without point i, predict it, relative error of the time.
            double err = 0;
            bool ok = true;
            for (size_t i = 0; i < n && ok; ++i) {
                std::vector<double> xs, ys, ws;
                for (size_t j = 0; j < n; ++j)
                    if (j != i) xs.push_back(x[j]), ys.push_back(y[j]), ws.push_back(logSpace ? 1.0 : 1.0 / us[j]);
                try {
                    PerformanceFunction f;
                    f.degree = d;
                    f.logSpace = logSpace;
                    f.coeffs = leastSquaresPolynomial(xs, ys, d, ws);
                    const double pred = f.timeUs(bytes[i], 1, 1);
                    err += std::fabs(pred - us[i]) / us[i];
                } catch (const std::invalid_argument&) {
                    ok = false;
                }
            }
            if (!ok) continue;
            err /= static_cast<double>(n);
            char buf[96];
            std::snprintf(buf, sizeof buf, "%s%s %s %.2f%%", tried.empty() ? "" : ", ", logSpace ? "log" : "lin",
                          degreeName(d), 100 * err);
            tried += buf;
            // A higher degree must be clearly better (0.1 point) to win: fewer wiggles between points.
            if (err < best.validationError - 1e-3) {
                best.validationError = err;
                best.function.degree = d;
                best.function.logSpace = logSpace;
            }
        }
    }
    if (!std::isfinite(best.validationError)) throw std::invalid_argument("fit: no degree could be fitted");
    std::vector<double> x(n), y(n), w(n);
    for (size_t i = 0; i < n; ++i) {
        x[i] = best.function.logSpace ? std::log(std::max(bytes[i], 1.0)) : bytes[i];
        y[i] = best.function.logSpace ? std::log(us[i]) : us[i];
        w[i] = best.function.logSpace ? 1.0 : 1.0 / us[i];
    }
    best.function.coeffs = leastSquaresPolynomial(x, y, best.function.degree, w);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %s: held-out error %.2f%% (", best.function.logSpace ? "log-space" : "linear",
                  degreeName(best.function.degree), 100 * best.validationError);
    best.why = buf + tried + ")";
    return best;
}

}  // namespace hieragg::hier
