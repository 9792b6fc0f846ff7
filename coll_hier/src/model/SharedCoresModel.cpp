#include "model/SharedCoresModel.hpp"

#include <algorithm>
#include <string>

#include "hieragg/hier/CollectiveFacts.hpp"
#include "model/TreeModel.hpp"

namespace hieragg::hier::model {

bool crowdedOneNode(const CollCall& c, const CostParams& p) {
    return !isDecomposed(c) && p.nodeCores > 0 && c.size > p.nodeCores;
}

double sharedCoresBcastUs(double latency, double work, double busiest, const Load& ld) {
    return std::max(busiest, work / ld.sharedCores) + kLatencyTieBreak * latency;
}

double bcastBusiestRankUs(const MemberTree& t, const Load& ld, const LinkCost& l) {
    double busiest = 0;
    for (size_t v = 0; v < t.children.size(); ++v) {
        const double own = static_cast<int>(v) == t.root ? 0.0 : l.theta_us + ld.bytes * l.beta_us_per_byte;
        busiest = std::max(busiest, own + static_cast<double>(t.children[v].size()) * l.theta_us);
    }
    return busiest;
}

double sharedCoresReduceUs(const Load& ld, const LinkCost& l, int n, double d, double b, double lone,
                           double loneMin) {
    const double busiest = ld.pulses * d * b, bound = (n - 1) * ld.pulses * b / ld.sharedCores;
    if (bound < busiest + l.alpha_us || lone > 2 * loneMin) return lone;
    return std::min(lone, bound + 1e-3 * busiest);
}

double reduceLoneMinUs(const Load& ld, const LinkCost& l, int n, double b) {
    double best = pulsedUs((n - 1) * (l.alpha_us + b), ld, l.alpha_us, b, 1.0);
    for (int k = 2; k <= std::max(2, n); ++k)
        best = std::min(best, exactTreeUs(TreeShape::knomial(k).build(n, 0), ld, l.alpha_us, b));
    return best;
}

StageChoice sharedCoresTree(const AlgorithmInfo& a, const Load& ld, const LinkCost& l, int n) {
    StageChoice s;
    s.algo = &a;
    s.members = n;
    const bool kary = a.shape == TreeShape::Kind::Kary;
    const int top = kary ? std::min(kMaxRadix, std::max(2, n - 1)) : std::max(2, n);
    auto shapeOf = [&](int k) { return kary ? TreeShape::kary(k) : TreeShape::knomial(k); };
    if (ld.shape == Shape::Reduce) {
        const double b = packetUs(l, ld, ld.pulseBytes), loneMin = reduceLoneMinUs(ld, l, n, b);
        double best = kInf;
        int bestK = 2;
        for (int k = 2; k <= top; ++k) {
            const MemberTree t = shapeOf(k).build(n, 0);
            size_t d = 1;
            for (const auto& kids : t.children) d = std::max(d, kids.size());
            const double us = sharedCoresReduceUs(ld, l, n, static_cast<double>(d), b,
                                                  exactTreeUs(t, ld, l.alpha_us, b), loneMin);
            if (us < best) best = us, bestK = k;
        }
        s.shape = shapeOf(bestK);
        s.predUs = best;
        s.why = std::to_string(ld.sharedCores) + " cores, back-to-back calls where they bound it: best k of 2.." +
                std::to_string(top);
        return s;
    }
    const double arrive = l.alpha_us + ld.bytes * l.beta_us_per_byte;
    const double work = (n - 1) * (l.theta_us + ld.bytes * l.beta_us_per_byte);
    double best = kInf;
    int bestK = 2;
    for (int k = 2; k <= top; ++k) {
        const MemberTree tree = shapeOf(k).build(n, 0);
        const double t = sharedCoresBcastUs(exactTreeUs(tree, ld, arrive, l.theta_us), work,
                                            bcastBusiestRankUs(tree, ld, l), ld);
        if (t < best) best = t, bestK = k;
    }
    s.shape = shapeOf(bestK);
    s.predUs = best;
    s.why = "back-to-back calls, receivers copy, " + std::to_string(ld.sharedCores) + " cores: best k of 2.." +
            std::to_string(top);
    return s;
}

double coresBoundUs(const CollCall& c, const CostParams& p, double msgs, double bytes, const LinkCost& l) {
    if (!crowdedOneNode(c, p)) return 0;
    return msgs * (l.theta_us + bytes * (l.beta_us_per_byte + l.gamma_us_per_byte)) / p.nodeCores;
}

}  // namespace hieragg::hier::model
