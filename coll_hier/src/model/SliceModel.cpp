#include "model/SliceModel.hpp"

#include <algorithm>
#include <cmath>

#include "hieragg/algorithms/ButterflyAllreduce.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "recipes/ReductionPulses.hpp"

namespace hieragg::hier::model {

double ringAllreduceUs(const LinkCost& l, int n, double bytes, double pulseBytes, double x) {
    if (n <= 1) return 0;
    const double windows = std::ceil(std::max(1.0, std::ceil(bytes / std::max(pulseBytes, 1.0))) /
                                     static_cast<double>(recipes::kPulseWindow));
    // A ring step is an exchange round: every member sends to its successor while it receives,
    // so the link carries x flows each way at once (duplexBetaUs).
    return 2.0 * (n - 1) * exchangeRoundUs(l) * windows +
           (n - 1.0) / n * bytes * (2 * x * duplexBetaUs(l) + l.gamma_us_per_byte);
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
    // The butterfly's rounds are exchanges (both partners send and receive: the link busy both
    // ways, duplexBetaUs); the fold's two messages go one way.
    const double latency = (msgs - 2 * fold) * exchangeRoundUs(l) + 2 * fold * (l.alpha_us + l.theta_us);
    const double foldMoved = 2 * fold;
    return latency * windows + bytes * ((moved - foldMoved) * x * duplexBetaUs(l) +
                                        foldMoved * x * l.beta_us_per_byte + reduced * l.gamma_us_per_byte);
}

SliceLayout sliceLayoutOf(const CollCall& c, const CostParams& p, const std::vector<int>& links) {
    SliceLayout x;
    x.seg = static_cast<double>(std::max<size_t>(c.segmentBytes, 1));
    x.hier = isDecomposed(c);
    const int n = c.size;
    x.n = n, x.S = n, x.M = n;
    if (x.hier) {
        const Hierarchy& h = *c.hierarchy;
        const int top = h.levels() - 1;
        x.G = h.groupCount(top);
        x.S = n, x.M = 0;
        std::vector<int> out(x.G, 0);
        for (int g = 0; g < x.G; ++g) {
            const int m = static_cast<int>(h.groupMembers(top, g).size());
            x.S = std::min(x.S, m), x.M = std::max(x.M, m);
        }
        for (int r = 0; r < n; ++r)
            if (h.groupOf(top, r) != h.groupOf(top, (r + 1) % n)) ++out[h.groupOf(top, r)];
        x.cross = std::max(1, *std::max_element(out.begin(), out.end()));
        x.in = &p.link[links[links.size() - 2]];
    }
    x.link = links.back();
    x.net = &p.link[x.link];
    return x;
}

}  // namespace hieragg::hier::model
