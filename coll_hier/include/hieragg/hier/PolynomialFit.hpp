// Least-squares fits of measured times against message size, for hieragg-tune
// (SPEC 3.4): every degree 1..4, in linear and in log-space, scored by
// leave-one-out validation error (relative error of the held-out point's time;
// linear-space fits weight residuals by 1/time, so relative errors count there too);
// the best is refitted on all points. No MPI.
#pragma once
#include <string>
#include <vector>

#include "hieragg/hier/PerformanceFunction.hpp"

namespace hieragg::hier {

// Least-squares polynomial of `degree` through (x, y) (x scaled internally for
// conditioning); coefficients c0..c_degree. Needs x.size() > degree distinct x.
// `weights` (optional, one per point) scale each residual: times are fitted with
// weight 1/y so that relative, not absolute, errors count (sizes span decades).
std::vector<double> leastSquaresPolynomial(const std::vector<double>& x, const std::vector<double>& y, int degree,
                                           const std::vector<double>& weights = {});

struct FitResult {
    PerformanceFunction function;
    double validationError = 0;  // mean relative error of held-out points
    std::string why;             // "log-space quadratic: held-out error 1.2% (linear space 4.5% ...)"
};

// The best function for times `us` measured at `bytes` (all positive times). Degrees
// above what the point count supports (n >= degree + 2) are skipped. Throws
// std::invalid_argument for fewer than 3 points or a non-positive time.
FitResult fitTimes(const std::vector<double>& bytes, const std::vector<double>& us);

}  // namespace hieragg::hier
