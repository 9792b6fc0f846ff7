// The simple hierarchical k-nomial tree (Zhao et al., the baseline of SPEC 3.2):
// a k-nomial tree inside every innermost group, then at each outer level a k-nomial
// tree over the leaders of its sub-groups. Group property holds, but heights add up
// level by level, so it can be taller than the merged tree (HierarchicalKnomialTree).
//
// Leaders: the root in its groups, else the lowest rank. Order inside a k-nomial tree:
// the leader (or the root's sub-group) first, then by rank / leader rank.
#pragma once
#include "hieragg/aggtree/ProcessHierarchy.hpp"
#include "hieragg/aggtree/Tree.hpp"

namespace hieragg::aggtree {

Tree buildGroupLeaderKnomialTree(const ProcessHierarchy& hierarchy, int k, int root = 0);

}  // namespace hieragg::aggtree
