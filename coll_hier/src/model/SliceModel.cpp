#include "model/SliceModel.hpp"

#include <algorithm>
#include <cmath>

#include "hieragg/algorithms/ButterflyAllreduce.hpp"
#include "recipes/ReductionPulses.hpp"

namespace hieragg::hier::model {

double ringAllreduceUs(const LinkCost& l, int n, double bytes, double pulseBytes, double x) {
    if (n <= 1) return 0;
    const double windows = std::ceil(std::max(1.0, std::ceil(bytes / std::max(pulseBytes, 1.0))) /
                                     static_cast<double>(recipes::kPulseWindow));
    // A ring step is an exchange round: every member sends to its successor while it receives.
    return 2.0 * (n - 1) * exchangeRoundUs(l) * windows +
           (n - 1.0) / n * bytes * (2 * x * l.beta_us_per_byte + l.gamma_us_per_byte);
}
double butterflyAllreduceUs(const LinkCost& l, int n, double bytes, double pulseBytes, double x, bool halving) {
    if (n <= 1) return 0;
    const int p2 = butterflyCore(n);
    const double lg = std::log2(static_cast<double>(p2)), fold = p2 == n ? 0.0 : 1.0;
    const double windows = std::ceil(std::max(1.0, std::ceil(bytes / std::max(pulseBytes, 1.0))) /
                                     static_cast<double>(recipes::kPulseWindow));
    const double msgs = (halving ? 2 * lg : lg) + 2 * fold;
    // Halving + doubling move 2 (p2 - 1)/p2 of the vector and reduce (p2 - 1)/p2 of it; plain
    // recursive doubling moves and reduces all of it every round. The fold moves it twice.
    const double moved = halving ? 2.0 * (p2 - 1) / p2 + 2 * fold : lg + 2 * fold;
    const double reduced = halving ? (p2 - 1.0) / p2 + fold : lg + fold;
    // The butterfly's rounds are exchanges (both partners send and receive); the fold's two
    // messages go one way.
    const double latency = (msgs - 2 * fold) * exchangeRoundUs(l) + 2 * fold * (l.alpha_us + l.theta_us);
    return latency * windows +
           bytes * (moved * x * l.beta_us_per_byte + reduced * l.gamma_us_per_byte);
}

}  // namespace hieragg::hier::model
