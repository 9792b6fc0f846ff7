// A fitted performance function (SPEC 3.4): a polynomial of degree 1..4 in the
// message size, optionally in log-space (ln time against ln bytes), plus optional
// polynomial terms in the process count and the subspace count. hieragg-tune
// fits them (PolynomialFit.hpp) and writes them into the rules file
// (RulesFile.hpp); the component evaluates them once per communicator.
#pragma once
#include <vector>

namespace hieragg::hier {

struct PerformanceFunction {
    int degree = 1;                       // 1 (linear) .. 4 (quartic) in the message size
    bool logSpace = false;                // y = ln(time), x = ln(bytes), p = ln(ranks), s = ln(subspaces)
    std::vector<double> coeffs;           // c0 + c1 x + ... + c_degree x^degree (degree + 1 entries)
    std::vector<double> rankCoeffs;       // + r1 p + r2 p^2 + ... (may be empty)
    std::vector<double> subspaceCoeffs;   // + s1 s + s2 s^2 + ... (may be empty)

    // The metric (time in microseconds) for one call: bytes >= 0 (0 counts as 1 in
    // log-space), ranks and subspaces >= 1. Never negative (a linear-space fit can dip
    // below zero between points; that is clamped to 0).
    double timeUs(double bytes, int ranks, int subspaces) const;
};

}  // namespace hieragg::hier
