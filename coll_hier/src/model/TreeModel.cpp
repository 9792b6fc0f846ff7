#include "model/TreeModel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>

#include "hieragg/aggtree/BlockKnomialArrival.hpp"
#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"
#include "hieragg/aggtree/KnomialTree.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"
#include "recipes/ReductionPulses.hpp"

namespace hieragg::hier::model {

double pulsedUs(double single, const Load& ld, const aggtree::HopPrice& hop, double d) {
    const double streamed = single + (ld.pulses - 1) * d * hop.occupancy;
    const double windows = std::ceil(ld.pulses / static_cast<double>(recipes::kPulseWindow));
    const double windowed =
        single + (windows - 1) * (2 * hop.alpha + hop.handshake + recipes::kPulseWindow * d * hop.occupancy);
    return std::max(streamed, windowed);
}

double exactTreeUs(const MemberTree& t, const Load& ld, const aggtree::HopPrice& hop) {
    std::vector<double> at(t.size(), 0.0);
    std::vector<int> order{t.root};
    double worst = 0;
    size_t busiest = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        const int v = order[i];
        const auto& kids = t.children[v];
        busiest = std::max(busiest, kids.size());
        for (size_t j = kids.size(); j-- > 0;) {
            const int c = kids[j];
            at[c] = hop.arrivalUs(at[v], static_cast<double>(kids.size() - j));
            worst = std::max(worst, at[c]);
            order.push_back(c);
        }
    }
    if (ld.shape == Shape::Reduce || ld.shape == Shape::Allreduce)
        worst = pulsedUs(worst, ld, hop, static_cast<double>(std::max<size_t>(busiest, 1)));
    if (ld.shape == Shape::Allreduce || ld.shape == Shape::Barrier) worst *= 2;
    return worst;
}

double exactShapeUs(TreeShape shape, int n, const Load& ld, const aggtree::HopPrice& hop) {
    std::vector<double> at(static_cast<size_t>(std::max(n, 1)), 0.0);
    std::vector<std::uint64_t> kids;
    double worst = 0;
    size_t busiest = 0;
    // TreeShape::build's own clamps.
    const int radix = shape.k < 2 ? 2 : shape.k;
    const std::uint64_t arity = shape.kind == TreeShape::Kind::Chain ? 1 : static_cast<std::uint64_t>(shape.k < 1 ? 1 : shape.k);
    const std::uint64_t members = static_cast<std::uint64_t>(std::max(n, 0));
    // Parents precede their children in both numberings; children in increasing order, as
    // MemberTree holds them for root 0.
    for (std::uint64_t v = 0; v < members; ++v) {
        if (shape.kind == TreeShape::Kind::Knomial) {
            kids = aggtree::knomialChildPositions(v, radix, members);
        } else {
            kids.clear();
            for (std::uint64_t c = v * arity + 1; c <= v * arity + arity && c < members; ++c) kids.push_back(c);
        }
        busiest = std::max(busiest, kids.size());
        for (size_t j = kids.size(); j-- > 0;) {  // exactTreeUs' sums, term for term
            const std::uint64_t c = kids[j];
            at[c] = hop.arrivalUs(at[v], static_cast<double>(kids.size() - j));
            worst = std::max(worst, at[c]);
        }
    }
    if (ld.shape == Shape::Reduce || ld.shape == Shape::Allreduce)
        worst = pulsedUs(worst, ld, hop, static_cast<double>(std::max<size_t>(busiest, 1)));
    if (ld.shape == Shape::Allreduce || ld.shape == Shape::Barrier) worst *= 2;
    return worst;
}

RadixChoice bestRadix(TreeShape (*shape)(int), int from, int to, int n, const Load& ld, const aggtree::HopPrice& hop) {
    RadixChoice best;
    for (int k = from; k <= to; ++k) {
        const double t = exactShapeUs(shape(k), n, ld, hop);
        if (t < best.us) best.us = t, best.k = k;
    }
    return best;
}

double wholeTreeUs(const aggtree::Tree& t, const Hierarchy& h, const std::vector<int>& links,
                   const CostParams& p, const Load& ld, int k, double unit) {
    std::vector<double> at(t.size(), 0.0);
    std::vector<int> order{t.root};
    double worst = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        const int v = order[i];
        const auto& kids = t.children[v];
        for (size_t j = 0; j < kids.size(); ++j) {
            const int c = kids[j];
            int level = 0;
            while (level < h.levels() && h.groupOf(level, v) != h.groupOf(level, c)) ++level;
            at[c] = hopOf(p.link[links[level]], ld, unit).arrivalUs(at[v], static_cast<double>(j + 1));
            worst = std::max(worst, at[c]);
            order.push_back(c);
        }
    }
    return wholeTreeFromArrivalUs(worst, links, p, ld, k, unit);
}

double wholeTreeFromArrivalUs(double latest, const std::vector<int>& links, const CostParams& p, const Load& ld,
                              int k, double unit) {
    if (ld.shape == Shape::Reduce || ld.shape == Shape::Allreduce)
        latest = pulsedUs(latest, ld, hopOf(p.link[links.back()], ld, unit), k);
    if (ld.shape == Shape::Allreduce || ld.shape == Shape::Barrier) latest *= 2;
    return latest;
}

StageChoice minimumHeightTree(const AlgorithmInfo& a, const CollCall& c, const Load& ld, const CostParams& p,
                         const std::vector<int>& links) {
    StageChoice s;
    s.algo = &a;
    s.members = c.size;
    s.link = links.back();
    // Root 0 whatever the call's root: a plan is shared by every root of its signature class,
    // and must be the same on every rank (ranks see different in-place flags, for one).
    const int root = 0;
    const double unit = unitBytes(ld);
    // Equal blocks of consecutive ranks (the usual layout): every candidate priced from the
    // group counts alone, the same double as its built tree (BlockKnomialArrival.hpp).
    // Otherwise each candidate's tree is built and priced vertex by vertex.
    std::optional<std::vector<int>> blocks = equalBlockCounts(*c.hierarchy);
    if (blocks && links.size() < blocks->size()) blocks.reset();
    std::vector<aggtree::HopPrice> hop;
    if (blocks)
        for (size_t f = 0; f < blocks->size(); ++f) hop.push_back(hopOf(p.link[links[f]], ld, unit));
    const aggtree::ProcessHierarchy ph = blocks ? aggtree::ProcessHierarchy{} : toProcessHierarchy(*c.hierarchy);
    double best = kInf;
    int bestK = 2;
    for (int k = 2; k <= std::min(kMaxRadix, std::max(2, c.size)); k = k < 16 ? k + 1 : k * 2) {
        double us = kInf;
        if (blocks) {
            const std::optional<double> latest = aggtree::blockKnomialLatestArrival(*blocks, k, hop);
            if (!latest) break;  // positions exceed 2^62 (deep hierarchies, wide k): no wider k fits either
            us = wholeTreeFromArrivalUs(*latest, links, p, ld, k, unit);
        } else {
            aggtree::Tree t;
            try {
                t = aggtree::buildHierarchicalKnomialTree(ph, k, root);
            } catch (const std::overflow_error&) {
                break;  // as above
            }
            us = wholeTreeUs(t, *c.hierarchy, links, p, ld, k, unit);
        }
        if (us < best) best = us, bestK = k;
    }
    s.shape = TreeShape::knomial(bestK);
    s.predUs = best;
    s.why = "min-height tree: best k of 2..16,32,64 by the per-edge model";
    return s;
}

}  // namespace hieragg::hier::model
