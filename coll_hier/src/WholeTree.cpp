#include "hieragg/hier/WholeTree.hpp"

#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"

namespace hieragg::hier {

std::vector<int> linksOf(const CollCall& c) {
    const int levels = c.hierarchy ? c.hierarchy->levels() : 0;
    if (c.stageLinks && static_cast<int>(c.stageLinks->size()) == levels + 1) return *c.stageLinks;
    return stageLinks({}, levels);
}

MemberTree knomialWholeTree(const CollCall& c, const StageChoice& s, int root, std::string* name) {
    if (name) *name = "hier_knomial(k=" + std::to_string(s.shape.k) + ")";
    return MemberTree::of(aggtree::buildHierarchicalKnomialTree(toProcessHierarchy(*c.hierarchy), s.shape.k, root));
}

MemberTree wholePlanTree(const CollCall& c, const StageChoice& s, int root, std::string* name) {
    if (s.algo && s.algo->tree) return s.algo->tree(c, s, root, name);
    return knomialWholeTree(c, s, root, name);
}

}  // namespace hieragg::hier
