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
ButterflyCrossing butterflyCrossingOf(const ExchangeLayout& x) {
    if (!x.hier) return [](int) { return 1; };
    const int n = x.n, p2 = butterflyCore(n), r = n - p2;
    const auto virtualOf = [r](int rank) { return rank < 2 * r ? (rank % 2 ? -1 : rank / 2) : rank - r; };
    const auto rankOf = [r](int v) { return v < r ? 2 * v : v + r; };
    return [x, n, r, virtualOf, rankOf](int d) {
        const std::vector<int> out = x.leaving([=](int rank) {
            if (d == 0) return rank < 2 * r && rank % 2 ? rank - 1 : n;  // the fold
            const int v = virtualOf(rank);
            return v < 0 ? n : rankOf(v ^ d);
        });
        return *std::max_element(out.begin(), out.end());
    };
}

double butterflyAllreduceUs(const LinkCost& net, const LinkCost& in, int n, double bytes, double pulseBytes,
                            const ButterflyCrossing& crossing, bool halving, bool burst) {
    if (n <= 1) return 0;
    const int p2 = butterflyCore(n);
    const double lg = std::log2(static_cast<double>(p2)), fold = p2 == n ? 0.0 : 1.0;
    const double pulse = std::min(bytes, std::max(pulseBytes, 1.0));
    const double windows = std::ceil(std::max(1.0, std::ceil(bytes / std::max(pulseBytes, 1.0))) /
                                     static_cast<double>(recipes::kPulseWindow));
    double perWindow = 0, transfer = 0;
    // One exchange round at distance d moving `share` of the vector each way. A round that
    // stays in the node still starts as a network round (docs/selection.md: the emulated
    // cluster measured 8 B recursive doubling slower than the trees where only one of its
    // rounds crosses); its bytes go over the node link.
    const auto round = [&](int d, double share) {
        const int x = crossing(d);
        perWindow +=
            exchangeBurstUs(net, burst ? std::max(x, 1) : 1) + (x > 0 ? rendezvousUs(net, share * pulse) : 0.0);
        transfer += exchangeRoundTransferUs(net, in, x, share * bytes);
    };
    // Halving at distance d keeps half of 2d/p2 of the vector and sends the other d/p2;
    // the doubling at d sends as much back. Plain recursive doubling sends all of it each round.
    for (int d = 1; d < p2; d *= 2) {
        if (halving) {
            round(d, static_cast<double>(d) / p2);
            round(d, static_cast<double>(d) / p2);
        } else {
            round(d, 1.0);
        }
    }
    // The fold's two messages of the whole vector go one way (start-ups as the rounds').
    if (fold > 0) {
        const int x = crossing(0);
        perWindow += 2 * (net.alpha_us + net.theta_us + (x > 0 ? rendezvousUs(net, pulse) : 0.0));
        transfer += 2 * bytes * (x > 0 ? x * net.beta_us_per_byte : in.beta_us_per_byte);
    }
    // Halving + doubling reduce (p2 - 1)/p2 of the vector, recursive doubling all of it each round.
    const double reduced = halving ? (p2 - 1.0) / p2 + fold : lg + fold;
    return perWindow * windows + transfer + bytes * reduced * net.gamma_us_per_byte;
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
