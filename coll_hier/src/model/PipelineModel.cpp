#include "model/PipelineModel.hpp"

#include <algorithm>
#include <cmath>

#include "recipes/PipelinedTree.hpp"

namespace hieragg::hier::model {

double pipelineUs(const MemberTree& t, const Hierarchy& h, const std::vector<int>& links, const CostParams& p,
                  const Load& ld, double c, double* stageOut) {
    std::vector<double> at(t.size(), 0.0);
    std::vector<int> order{t.root};
    double fill = 0, stage = 0, slowAlpha = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        const int v = order[i];
        const auto& kids = t.children[v];
        double busy = 0, served = 0;
        for (size_t j = kids.size(); j-- > 0;) {  // the order TreeBcast serves them
            const int k = kids[j];
            int level = 0;
            while (level < h.levels() && h.groupOf(level, v) != h.groupOf(level, k)) ++level;
            const LinkCost& l = p.link[links[level]];
            served += packetUs(l, ld, c);
            busy += packetUs(l, ld, c);
            slowAlpha = std::max(slowAlpha, l.alpha_us);
            at[k] = at[v] + l.alpha_us + served;
            fill = std::max(fill, at[k]);
            order.push_back(k);
        }
        stage = std::max(stage, busy);
    }
    if (ld.shape == Shape::Allreduce) {
        // Up and down the same tree: twice the fill, and every vertex handles each
        // fragment twice (combining its children's parts, then forwarding the result).
        fill *= 2;
        stage *= 2;
    }
    const double m = std::max(ld.bytes, 1.0);
    const double frags = std::ceil(m / c);
    const double streamed = fill + (frags - 1) * stage;
    const double w = static_cast<double>(recipes::kFragmentWindow);
    const double windowed = fill + (std::ceil(frags / w) - 1) * (2 * slowAlpha + w * stage);
    if (stageOut) *stageOut = stage;
    return std::max(streamed, windowed);
}

}  // namespace hieragg::hier::model
