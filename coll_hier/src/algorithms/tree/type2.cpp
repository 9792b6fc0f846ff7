// type2: the minimum-cost type II switch tree (SwitchTree.hpp, topology: levels), one proxy
// rank aggregating per kept switch; allreduce is its reduce and bcast over the same tree.
#include <algorithm>
#include <string>

#include "algorithms/Row.hpp"
#include "hieragg/hier/WholeTree.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/SwitchTree.hpp"
#include "model/TreeModel.hpp"

namespace hieragg::hier::units {

// The type II switch tree (SwitchTree.hpp) executed by proxies, priced like the
// hierarchical tree: the same per-edge model over the rank tree the proxies form. Not
// allocated (entries, degree): algo stays null and *note says why.
static StageChoice predictSwitchTree(const AlgorithmInfo& a, const CollCall& c, const Load& ld, const CostParams& p,
                                     const std::vector<int>& links, std::string* note) {
    StageChoice s;
    s.members = c.size;
    s.link = links.back();
    const SwitchTree st = allocateSwitchTree(*c.hierarchy, links, c.switchEntries, c.switchDegree);
    if (!st.allocated) {
        *note = std::string("hieragg: ") + collectiveName(c.args.kind) + ": type II tree not available: " +
                st.reason + "; type I trees run";
        return s;
    }
    s.algo = &a;
    const aggtree::Tree t = st.rankTree(c.size, 0);  // root 0: plans are shared by every root
    const double unit = ld.shape == Shape::Reduce || ld.shape == Shape::Allreduce ? ld.pulseBytes : ld.bytes;
    s.predUs = wholeTreeUs(t, *c.hierarchy, links, p, ld, std::max(1, t.maxDegree()), unit);
    s.why = st.label() + "; proxies fan in up to " + std::to_string(t.maxDegree()) + " ranks, height " +
            std::to_string(t.height());
    return s;
}

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    return estimateOf(predictSwitchTree(a, q.call, q.load, q.params, q.links, q.note));
}
// Its tree: the plan chose it because it was allocated, and the same inputs allocate it
// again; if not, the hierarchical k-nomial tree.
static MemberTree tree(const CollCall& c, const StageChoice& s, int root, std::string* name) {
    const SwitchTree st = allocateSwitchTree(*c.hierarchy, linksOf(c), c.switchEntries, c.switchDegree);
    if (!st.allocated) return knomialWholeTree(c, s, root, name);
    if (name) *name = "type2(" + st.label() + ")";
    return MemberTree::of(st.rankTree(c.size, root));
}

constexpr Pricing P = Pricing::WholeTree;
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition | kNeedsSwitchLevels;
constexpr const char* kSummary =
    "minimum-cost type II switch tree (topology: levels), one proxy rank aggregating per kept switch";

extern const AlgorithmInfo bcast_type2 = {HIERAGG_BCAST, "type2", kServesWhole, kNeeds, 0, 0,
                                          K::Knomial, kSummary, P, cost, nullptr, nullptr, tree};
extern const AlgorithmInfo reduce_type2 = {HIERAGG_REDUCE, "type2", kServesWhole, kNeeds | kNeedsCommutativeOp, 0,
                                           0, K::Knomial, kSummary, P, cost, nullptr, nullptr, tree};
extern const AlgorithmInfo allreduce_type2 = {HIERAGG_ALLREDUCE, "type2", kServesWhole,
                                              kNeeds | kNeedsCommutativeOp, 0, 0, K::Knomial,
                                              kSummary, P, cost, nullptr, nullptr, tree};

}  // namespace hieragg::hier::units
