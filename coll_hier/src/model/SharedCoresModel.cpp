#include "model/SharedCoresModel.hpp"

#include <algorithm>
#include <string>

#include "hieragg/hier/CollectiveFacts.hpp"
#include "model/TreeModel.hpp"

namespace hieragg::hier::model {

bool crowdedOneNode(const CollCall& c, const CostParams& p) {
    return !isDecomposed(c) && p.nodeCores > 0 && c.size > p.nodeCores;
}

PredictedCost loneCrowdedCall(double latency, double work, double busiest, double fan, int ranks, double alphaUs,
                              int cores) {
    return {std::max(latency, (ranks * alphaUs + work) / cores), std::max(busiest, work / cores), fan};
}

double busiestRankUs(const std::vector<RankMessages>& ranks, double sendUs, double recvUs) {
    double busiest = 0;
    for (const RankMessages& r : ranks) busiest = std::max(busiest, r.sends * sendUs + r.receptions * recvUs);
    return busiest;
}

double largestFanUs(const std::vector<RankMessages>& ranks, double messageUs) {
    int fan = 0;
    for (const RankMessages& r : ranks) fan = std::max({fan, r.sends, r.receptions});
    return fan * messageUs;
}

std::vector<RankMessages> treeMessages(const MemberTree& t, Flow flow) {
    std::vector<RankMessages> out(t.children.size());
    for (size_t v = 0; v < out.size(); ++v) {
        const int kids = static_cast<int>(t.children[v].size()), parent = static_cast<int>(v) == t.root ? 0 : 1;
        out[v] = flow == Flow::Down ? RankMessages{kids, parent} : RankMessages{parent, kids};
    }
    return out;
}

std::vector<RankMessages> doublingMessages(int n) {
    std::vector<RankMessages> out(std::max(n, 0));
    for (int r = 0; r < n; ++r)
        for (int d = 1; d < n; d *= 2) {
            out[r].sends += r + d < n;
            out[r].receptions += r >= d;
        }
    return out;
}

StageChoice sharedCoresTree(const AlgorithmInfo& a, const Load& ld, const LinkCost& l, int n) {
    StageChoice s;
    s.algo = &a;
    s.members = n;
    const bool kary = a.shape == TreeShape::Kind::Kary;
    const int top = kary ? std::min(kMaxRadix, std::max(2, n - 1)) : std::max(2, n);
    auto shapeOf = [&](int k) { return kary ? TreeShape::kary(k) : TreeShape::knomial(k); };
    if (ld.shape == Shape::Reduce) {
        const double b = packetUs(l, ld, ld.pulseBytes), work = (n - 1) * ld.pulses * b;
        PredictedCost best{kInf, kInf};
        int bestK = 2;
        for (int k = 2; k <= top; ++k) {
            const MemberTree t = shapeOf(k).build(n, 0);
            const std::vector<RankMessages> msgs = treeMessages(t, Flow::Up);
            const PredictedCost us = loneCrowdedCall(
                exactTreeUs(t, ld, hopOf(l, ld, ld.pulseBytes)), work, ld.pulses * busiestRankUs(msgs, l.theta_us, b),
                ld.pulses * largestFanUs(msgs, l.theta_us), n, l.alpha_us, ld.sharedCores);
            if (us < best) best = us, bestK = k;
        }
        s.shape = shapeOf(bestK);
        s.setCost(best);
        s.why = "lone call, " + std::to_string(ld.sharedCores) + " cores shared: best k of 2.." + std::to_string(top);
        return s;
    }
    const double arrive = l.alpha_us + ld.bytes * l.beta_us_per_byte;
    const double work = (n - 1) * (l.theta_us + ld.bytes * l.beta_us_per_byte);
    PredictedCost best{kInf, kInf};
    int bestK = 2;
    for (int k = 2; k <= top; ++k) {
        const MemberTree tree = shapeOf(k).build(n, 0);
        const std::vector<RankMessages> msgs = treeMessages(tree, Flow::Down);
        const PredictedCost t =
            loneCrowdedCall(exactTreeUs(tree, ld, aggtree::HopPrice{arrive, 0.0, l.theta_us}), work,
                            busiestRankUs(msgs, l.theta_us, l.theta_us + ld.bytes * l.beta_us_per_byte),
                            largestFanUs(msgs, l.theta_us), n, l.alpha_us, ld.sharedCores);
        if (t < best) best = t, bestK = k;
    }
    s.shape = shapeOf(bestK);
    s.setCost(best);
    s.why = "lone call, receivers copy, " + std::to_string(ld.sharedCores) + " cores shared: best k of 2.." +
            std::to_string(top);
    return s;
}

}  // namespace hieragg::hier::model
