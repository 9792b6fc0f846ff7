// The tree of the pipelined hierarchical rows (bcast/reduce "hier_pipeline"): one tree
// over every level in which the leaders of the outermost groups form `leaders` (a chain
// by default: each node's link carries the message once) starting at the root's group,
// and every space below is an `inner` tree rooted at its leader (the root in its own
// groups). A vertex's children list its own space's children first and the next
// leader last, so TreeBcast (which serves children last to first) feeds the next
// leader before its own subspace: the slow link starts as early as possible.
#pragma once
#include "hieragg/algorithms/MemberTree.hpp"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::hier {

MemberTree pipelineTree(const Hierarchy& h, int root, TreeShape leaders, TreeShape inner);

}  // namespace hieragg::hier
