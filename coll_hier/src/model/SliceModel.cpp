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

namespace {
// A butterfly's start-ups and bytes, summed round by round.
struct Rounds {
    double startUps = 0, transfer = 0;
    // One exchange round in which x of the busiest node's members send across `net`, each a
    // message of `message` bytes (what pays the rendezvous), `bytes` each in all (queued:
    // exchangeRoundTransferUs). A round that stays in the node (x = 0) still starts as a
    // network round (docs/selection.md: the emulated cluster measured 8 B recursive doubling
    // slower than the trees where only one of its rounds crosses); its bytes go over the
    // node link. burst false: the x messages start as one exchange round.
    void exchange(const LinkCost& net, const LinkCost& in, int x, double message, double bytes, bool burst = true) {
        startUps += exchangeBurstUs(net, burst ? std::max(x, 1) : 1) + (x > 0 ? rendezvousUs(net, message) : 0.0);
        transfer += exchangeRoundTransferUs(net, in, x, bytes);
    }
    // `count` messages of the fold (odd member to even or back), one way: x of them at once
    // across `net`, each `message` bytes (of a pulse), `bytes` in all.
    void fold(const LinkCost& net, const LinkCost& in, int x, double count, double message, double bytes) {
        startUps += count * (net.alpha_us + net.theta_us + (x > 0 ? rendezvousUs(net, message) : 0.0));
        transfer += count * bytes * (x > 0 ? x * net.beta_us_per_byte : in.beta_us_per_byte);
    }
};
}  // namespace

double butterflyAllreduceUs(const LinkCost& net, const LinkCost& in, int n, double bytes, double pulseBytes,
                            const ButterflyCrossing& crossing, bool halving, bool burst) {
    if (n <= 1) return 0;
    const int p2 = butterflyCore(n);
    const double lg = std::log2(static_cast<double>(p2)), fold = p2 == n ? 0.0 : 1.0;
    const double pulse = std::min(bytes, std::max(pulseBytes, 1.0));
    const double windows = std::ceil(std::max(1.0, std::ceil(bytes / std::max(pulseBytes, 1.0))) /
                                     static_cast<double>(recipes::kPulseWindow));
    Rounds per;  // start-ups per window of pulses, bytes of the whole vector
    // One exchange round at distance d moving `share` of the vector each way.
    const auto round = [&](int d, double share) { per.exchange(net, in, crossing(d), share * pulse, share * bytes, burst); };
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
    if (fold > 0) per.fold(net, in, crossing(0), 2, pulse, bytes);
    // Halving + doubling reduce (p2 - 1)/p2 of the vector, recursive doubling all of it each round.
    const double reduced = halving ? (p2 - 1.0) / p2 + fold : lg + fold;
    return per.startUps * windows + per.transfer + bytes * reduced * net.gamma_us_per_byte;
}

std::pair<double, double> butterflyReduceScatterUs(const LinkCost& net, const LinkCost& in, int n, double bytes,
                                                   const ButterflyCrossing& crossing) {
    if (n <= 1) return {0, 0};
    const int p2 = butterflyCore(n);
    const double fold = p2 == n ? 0.0 : 1.0;
    Rounds all;
    // Halving at distance d trades d/p2 of the vector (d = p2/2 first: half of it).
    for (int d = 1; d < p2; d *= 2) {
        const double share = static_cast<double>(d) / p2 * bytes;
        all.exchange(net, in, crossing(d), share, share);
    }
    // The folded members' whole vectors in, their blocks (1/n) back out.
    if (fold > 0) {
        all.fold(net, in, crossing(0), 1, bytes, bytes);
        all.fold(net, in, crossing(0), 1, bytes / n, bytes / n);
    }
    return {all.startUps, all.transfer + bytes * ((p2 - 1.0) / p2 + fold) * net.gamma_us_per_byte};
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
