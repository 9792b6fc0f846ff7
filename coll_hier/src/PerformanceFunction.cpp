#include "hieragg/hier/PerformanceFunction.hpp"

#include <algorithm>
#include <cmath>

namespace hieragg::hier {

namespace {
// Horner without the constant term: v1 t + v2 t^2 + ...
double powerTerms(const std::vector<double>& v, double t) {
    double acc = 0;
    for (size_t i = v.size(); i-- > 0;) acc = (acc + v[i]) * t;
    return acc;
}
}  // namespace

double PerformanceFunction::timeUs(double bytes, int ranks, int subspaces) const {
    const double x = logSpace ? std::log(std::max(bytes, 1.0)) : bytes;
    const double p = logSpace ? std::log(std::max(ranks, 1)) : ranks;
    const double s = logSpace ? std::log(std::max(subspaces, 1)) : subspaces;
    double y = 0;
    for (size_t i = coeffs.size(); i-- > 0;) y = y * x + coeffs[i];
    y += powerTerms(rankCoeffs, p) + powerTerms(subspaceCoeffs, s);
    return logSpace ? std::exp(y) : std::max(y, 0.0);
}

}  // namespace hieragg::hier
