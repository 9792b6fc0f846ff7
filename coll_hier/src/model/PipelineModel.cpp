#include "model/PipelineModel.hpp"

#include <algorithm>
#include <array>
#include <cmath>


namespace hieragg::hier::model {

double fragmentUs(const LinkCost& l, const Load& ld, double c) {
    return std::max(l.alpha_us + l.theta_us, occupancyUs(l, ld, c));
}

namespace {
// A vertex's per-fragment work on each link class it has children over.
using LinkBusy = std::array<double, kLinkClassCount>;
double busiestLinkUs(const LinkBusy& busy) { return *std::max_element(busy.begin(), busy.end()); }
}  // namespace

PipelineTimes pipelineTimes(const MemberTree& t, const Hierarchy& h, const std::vector<int>& links,
                            const CostParams& p, const Load& ld, double c) {
    PipelineTimes out;
    std::vector<double> at(t.size(), 0.0);
    std::vector<int> order{t.root};
    for (size_t i = 0; i < order.size(); ++i) {
        const int v = order[i];
        const auto& kids = t.children[v];
        double served = 0;
        LinkBusy busy{};
        for (size_t j = kids.size(); j-- > 0;) {  // the order TreeBcast serves them
            const int k = kids[j];
            int level = 0;
            while (level < h.levels() && h.groupOf(level, v) != h.groupOf(level, k)) ++level;
            const LinkCost& l = p.link[links[level]];
            const aggtree::HopPrice hop = hopOf(l, ld, c);  // the rendezvous once per hop
            served += hop.occupancy;
            busy[links[level]] += fragmentUs(l, ld, c);
            at[k] = at[v] + hop.alpha + hop.handshake + served;
            out.fill = std::max(out.fill, at[k]);
            order.push_back(k);
        }
        out.stage = std::max(out.stage, busiestLinkUs(busy));
    }
    return out;
}

PipelineTimes blockPipelineTimes(const std::vector<int>& counts, TreeShape leaders, TreeShape inner,
                                 const std::vector<int>& links, const CostParams& p, const Load& ld, double c) {
    PipelineTimes out;
    // The latest vertex of one class: when it arrives, and what it has served of its own
    // children so far (its children above the level at hand; a vertex serves its last child,
    // the outermost level's, first). Start: the root, nothing served.
    // `busy`: its fragmentUs over the same children (pipelineTimes' stage).
    struct Latest {
        double at, served;
        LinkBusy busy;
    };
    std::vector<Latest> classes{{0.0, 0.0, LinkBusy{}}};
    const size_t top = counts.size() - 1;
    std::vector<double> at;
    std::vector<int> order;
    for (size_t f = counts.size(); f-- > 0;) {
        const int m = counts[f];
        if (m <= 1) continue;  // no edge at this level: nothing served, nobody new
        const LinkCost& l = p.link[links[f]];
        const aggtree::HopPrice hop = hopOf(l, ld, c);  // the rendezvous once per hop, not per fragment
        const double fragment = fragmentUs(l, ld, c);
        const MemberTree t = (f == top ? leaders : inner).build(m, 0);
        std::vector<Latest> next;
        at.assign(m, 0.0);
        for (const Latest& from : classes) {
            // This level's tree below a vertex of the class (index 0), each vertex's children
            // served from what it served before: the class's for index 0, nothing for the rest.
            at[0] = from.at;
            order.assign(1, t.root);
            for (size_t i = 0; i < order.size(); ++i) {
                const int v = order[i];
                const auto& kids = t.children[v];
                double served = v == t.root ? from.served : 0.0;
                LinkBusy busy = v == t.root ? from.busy : LinkBusy{};
                for (size_t j = kids.size(); j-- > 0;) {
                    const int k = kids[j];
                    served += hop.occupancy;  // pipelineTimes' sums, term for term
                    busy[links[f]] += fragment;
                    at[k] = at[v] + hop.alpha + hop.handshake + served;
                    out.fill = std::max(out.fill, at[k]);
                    order.push_back(k);
                }
                next.push_back({at[v], served, busy});
            }
        }
        // One class per amount served (and busy): its latest vertex (ties are equal doubles).
        std::sort(next.begin(), next.end(), [](const Latest& x, const Latest& y) {
            if (x.served != y.served) return x.served < y.served;
            return x.busy != y.busy ? x.busy < y.busy : x.at > y.at;
        });
        classes.clear();
        for (const Latest& x : next)
            if (classes.empty() || classes.back().served != x.served || classes.back().busy != x.busy)
                classes.push_back(x);
    }
    // A vertex's busy time on each link is over all its children: its class's at the end.
    for (const Latest& x : classes) out.stage = std::max(out.stage, busiestLinkUs(x.busy));
    return out;
}

double pipelineFromTimesUs(PipelineTimes t, const Load& ld, double c, double* stageOut) {
    if (ld.shape == Shape::Allreduce) {
        // Up and down the same tree: twice the fill, and every vertex handles each
        // fragment twice (combining its children's parts, then forwarding the result).
        t.fill *= 2;
        t.stage *= 2;
    }
    const double m = std::max(ld.bytes, 1.0);
    const double frags = std::ceil(m / c);
    if (stageOut) *stageOut = t.stage;
    return t.fill + (frags - 1) * t.stage;
}

double pipelineUs(const MemberTree& t, const Hierarchy& h, const std::vector<int>& links, const CostParams& p,
                  const Load& ld, double c, double* stageOut) {
    return pipelineFromTimesUs(pipelineTimes(t, h, links, p, ld, c), ld, c, stageOut);
}

}  // namespace hieragg::hier::model
