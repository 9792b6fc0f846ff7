#include "hieragg/aggtree/WidthCurve.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace hieragg::aggtree {

WidthCurve widthCurve(double a_us, double b_us, double processes, double epsilon_us, int kLast) {
    std::vector<int> widths;
    std::vector<double> f_us;
    for (int k = 2; k <= kLast; ++k) {
        widths.push_back(k);
        f_us.push_back(typeOneModelUs(k, a_us, b_us, processes));
    }
    return {a_us, b_us, processes, epsilon_us, widthBand(a_us, b_us, processes, epsilon_us), std::move(widths),
            std::move(f_us)};
}

namespace {
std::ofstream openFor(const std::string& path) {
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
    return out;
}
}  // namespace

void writeWidthCurve(const WidthCurve& c, const std::string& directory) {
    {
        auto csv = openFor(directory + "/fig6.csv");
        csv << "# F(k) = (a + b*k) * log_k(P), a=" << c.a_us << " us, b=" << c.b_us << " us, P=" << c.processes
            << "; k*=" << c.band.k_star << " F*=" << c.band.f_star_us << " us; band [" << c.band.k_min << ","
            << c.band.k_max << "] for eps=" << c.epsilon_us << " us\n";
        csv << "k,F_us,in_band\n";
        for (size_t i = 0; i < c.k.size(); ++i)
            csv << c.k[i] << ',' << c.f_us[i] << ',' << (c.k[i] >= c.band.k_min && c.k[i] <= c.band.k_max) << '\n';
        if (!csv) throw std::runtime_error("cannot write " + directory + "/fig6.csv");
    }
    // Line chart: x = k (linear), y = F(k) clipped to [F*−0.2, F* + 1] so the band is visible.
    const double W = 640, H = 400, left = 60, right = 20, top = 30, bottom = 50;
    const double kLo = c.k.front(), kHi = c.k.back();
    const double yLo = c.band.f_star_us - 0.2, yHi = c.band.f_star_us + 1.0;
    auto X = [&](double k) { return left + (k - kLo) / (kHi - kLo) * (W - left - right); };
    auto Y = [&](double f) { return top + (yHi - std::clamp(f, yLo, yHi)) / (yHi - yLo) * (H - top - bottom); };
    std::ostringstream svg;
    svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H << "' font-family='sans-serif' font-size='12'>\n";
    svg << "<rect width='100%' height='100%' fill='white'/>\n";
    svg << "<rect x='" << X(c.band.k_min) << "' y='" << top << "' width='" << X(c.band.k_max) - X(c.band.k_min)
        << "' height='" << H - top - bottom << "' fill='#dfe9f7'/>\n";
    svg << "<line x1='" << left << "' y1='" << Y(c.band.f_star_us + c.epsilon_us) << "' x2='" << W - right << "' y2='"
        << Y(c.band.f_star_us + c.epsilon_us) << "' stroke='#999' stroke-dasharray='4 3'/>\n";
    svg << "<polyline fill='none' stroke='#1f4e9c' stroke-width='2' points='";
    for (size_t i = 0; i < c.k.size(); ++i) svg << X(c.k[i]) << ',' << Y(c.f_us[i]) << ' ';
    svg << "'/>\n";
    svg << "<circle cx='" << X(c.band.k_star) << "' cy='" << Y(c.band.f_star_us) << "' r='4' fill='#c0392b'/>\n";
    // Axes and ticks.
    svg << "<line x1='" << left << "' y1='" << H - bottom << "' x2='" << W - right << "' y2='" << H - bottom << "' stroke='black'/>\n";
    svg << "<line x1='" << left << "' y1='" << top << "' x2='" << left << "' y2='" << H - bottom << "' stroke='black'/>\n";
    for (int k = 16; k <= kHi; k += 16)
        svg << "<text x='" << X(k) << "' y='" << H - bottom + 16 << "' text-anchor='middle'>" << k << "</text>\n";
    for (double f = std::ceil(yLo * 5) / 5; f <= yHi + 1e-9; f += 0.2)
        svg << "<text x='" << left - 6 << "' y='" << Y(f) + 4 << "' text-anchor='end'>" << f << "</text>\n";
    svg << "<text x='" << (left + W - right) / 2 << "' y='" << H - 12 << "' text-anchor='middle'>k (tree width)</text>\n";
    svg << "<text x='14' y='" << (top + H - bottom) / 2 << "' transform='rotate(-90 14 " << (top + H - bottom) / 2
        << ")' text-anchor='middle'>F(k) [us]</text>\n";
    svg << "<text x='" << left + 8 << "' y='" << top - 10 << "'>F(k), a=" << c.a_us << " us, b=" << c.b_us
        << " us, P=" << c.processes << ": k*=" << c.band.k_star << ", F(k)-F* &lt;= " << c.epsilon_us << " us for k in ["
        << c.band.k_min << ", " << c.band.k_max << "]</text>\n";
    svg << "</svg>\n";
    auto out = openFor(directory + "/fig6.svg");
    out << svg.str();
    if (!out) throw std::runtime_error("cannot write " + directory + "/fig6.svg");
}

}  // namespace hieragg::aggtree
