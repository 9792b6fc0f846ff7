#include "hieragg/hier/WholeTree.hpp"

#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"
#include "hieragg/hier/SwitchTree.hpp"

namespace hieragg::hier {

std::vector<int> linksOf(const CollCall& c) {
    const int levels = c.hierarchy ? c.hierarchy->levels() : 0;
    if (c.stageLinks && static_cast<int>(c.stageLinks->size()) == levels + 1) return *c.stageLinks;
    return stageLinks({}, levels);
}

MemberTree wholePlanTree(const CollCall& c, const StageChoice& s, int root, std::string* name) {
    const Hierarchy& h = *c.hierarchy;
    if (s.algo && s.algo->emitter == Emitter::SwitchTree) {
        // The plan chose it because it was allocated; the same inputs allocate it again.
        const SwitchTree st = allocateSwitchTree(h, linksOf(c), c.switchEntries, c.switchDegree);
        if (st.allocated) {
            if (name) *name = "type2(" + st.label() + ")";
            return MemberTree::of(st.rankTree(c.size, root));
        }
    }
    if (name) *name = "hier_knomial(k=" + std::to_string(s.shape.k) + ")";
    return MemberTree::of(aggtree::buildHierarchicalKnomialTree(toProcessHierarchy(h), s.shape.k, root));
}

}  // namespace hieragg::hier
