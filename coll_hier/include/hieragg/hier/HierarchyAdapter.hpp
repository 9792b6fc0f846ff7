// One hierarchy model: the decomposition (hier::Hierarchy) seen as the nested
// grouping coll_aggtree's tree builders take (aggtree::ProcessHierarchy). The
// group ids are copied as they are; nesting, leaders and validation stay in
// their own modules.
#pragma once
#include <optional>
#include <vector>

#include "hieragg/aggtree/ProcessHierarchy.hpp"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::hier {

aggtree::ProcessHierarchy toProcessHierarchy(const Hierarchy& h);

// The radices of aggtree::blockKnomialLatestArrival when every level's groups are equal
// blocks of consecutive ranks (nodes of consecutive ranks, virtual:N): the ranks of a
// level-0 group, then the level-(l-1) groups in one level-l group, then the outermost
// groups (levels() + 1 entries). nullopt for any other hierarchy (round robin, uneven
// groups). O(number of groups), never O(ranks x levels).
std::optional<std::vector<int>> equalBlockCounts(const Hierarchy& h);

}  // namespace hieragg::hier
