// The latest arrival in the hierarchical minimum-height k-nomial tree
// (buildHierarchicalKnomialTree, root 0) of a hierarchy of equal blocks, priced per edge
// without building the tree: O(sum of counts) time, O(largest count) memory, instead of
// O(P) per tree.
//
// A hierarchy of equal blocks: at every level every group is the same number of
// consecutive ranks, so rank r is the mixed-radix number (d_L .. d_1 d_0) with
// counts[f] as the radices: d_0 its index in its level-0 group, d_f (0 < f < L) the index
// of its level-(f-1) group inside its level-f group, d_L the index of its level-(L-1) group
// among the outermost ones. Merging equal groups puts group d at offset d x cnt, so
// each digit d_f takes its own field of base-k digits of the rank's position, every
// ancestor position is occupied, and the tree is the product of one k-nomial tree over
// counts[f] per field: a vertex whose fields below f are zero has the k-nomial children
// of 0 of every lower field first (rank order), then its own field-f children.
//
// Pricing (the planner's per-edge model, HopPrice.hpp): the (j+1)-th child of a vertex
// (children in rank order) arrives hop[f].arrivalUs(parent, j + 1), f the level of the
// lowest group holding both ends (the field they differ in). Every vertex whose fields
// below f are zero carries the same subtree below f, and its arrivals there only grow
// with its own arrival (floating-point addition is monotone), so the latest arrival over
// all of them is reached below the latest vertex: one k-nomial tree per field, top field
// first, each started at the latest arrival so far. The result is the same double as
// pricing the built tree vertex by vertex (tests/aggtree/block_knomial_arrival_test.cpp).
#pragma once
#include <optional>
#include <vector>

#include "hieragg/aggtree/HopPrice.hpp"

namespace hieragg::aggtree {

// counts[f] (each >= 1): the radices above, innermost first; hop[f]: the price of an edge
// whose ends first share a group at level f (counts.size() entries).
// Returns the latest arrival over every vertex (0 for a single process), or nullopt where
// buildHierarchicalKnomialTree throws std::overflow_error (positions beyond 2^62).
// Throws std::invalid_argument for k < 2, a count < 1 or arrays of different lengths.
std::optional<double> blockKnomialLatestArrival(const std::vector<int>& counts, int k,
                                                const std::vector<HopPrice>& hop);

}  // namespace hieragg::aggtree
