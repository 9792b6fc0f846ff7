// The paper's figure 6: F(k) = (a + b·k)·log_k P over integer k, its optimum k* and the
// band of widths within ε of F(k*). Written as CSV and as a self-drawn SVG line chart.
#pragma once
#include <string>
#include <vector>

#include "hieragg/aggtree/CostModel.hpp"

namespace hieragg::aggtree {

struct WidthCurve {
    double a_us = 1.12, b_us = 0.01, processes = 512, epsilon_us = 0.1;
    WidthBand band;
    std::vector<int> k;        // 2 .. kLast
    std::vector<double> f_us;  // F(k)
};

WidthCurve widthCurve(double a_us, double b_us, double processes, double epsilon_us, int kLast = 128);

// Writes fig6.csv (k, F_us, in_band) and fig6.svg into `directory` (which must exist).
// Throws std::runtime_error if a file cannot be written.
void writeWidthCurve(const WidthCurve& curve, const std::string& directory);

}  // namespace hieragg::aggtree
