// The tree model (SPEC 3.2's T = r l + h k (theta + S beta + S* gamma), per edge): a parent
// serves its children one after the other and a message takes alpha to arrive; the stage
// ends at the latest arrival. Reductions add the pulses that stream behind the first.
#pragma once
#include <vector>

#include "hieragg/aggtree/Tree.hpp"
#include "hieragg/algorithms/MemberTree.hpp"
#include "hieragg/CollCall.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Selection.hpp"
#include "model/StageLoad.hpp"

namespace hieragg::hier::model {

// A pulsed reduction whose single pulse takes `single`: further pulses stream through the
// busiest node (d packets of hop.occupancy each; their handshakes overlap the stream), but
// at most kPulseWindow pulses are in flight per rank, and a rank learns that a pulse left
// only when its receiver took it, so every window costs at least a round trip (2 alpha) on
// each edge and one handshake (a dependent hop).
double pulsedUs(double single, const Load& ld, const aggtree::HopPrice& hop, double d);

// One stage's tree `t`: a parent serves its children one after the other, largest subtree
// first, the j-th arriving hop.arrivalUs(parent, j) (the rendezvous once per hop). Reductions add the pipeline of
// further pulses through the busiest node; allreduce and barrier go up and down.
double exactTreeUs(const MemberTree& t, const Load& ld, const aggtree::HopPrice& hop);

// exactTreeUs(shape.build(n, 0), ...) without building the tree: the k-nomial, k-ary and
// chain numberings give each vertex's children directly. The same double
// (tests/hier/exact_shape_test.cpp).
double exactShapeUs(TreeShape shape, int n, const Load& ld, const aggtree::HopPrice& hop);

// The radix k in [from, to] whose tree shape(k) over n members is the quickest by
// exactTreeUs (the first such k on ties; priced by exactShapeUs).
struct RadixChoice {
    int k = 2;
    double us = kInf;
};
RadixChoice bestRadix(TreeShape (*shape)(int), int from, int to, int n, const Load& ld, const aggtree::HopPrice& hop);

// A whole tree over every level: the latest arrival over every vertex, edges priced by the
// link class of the lowest level whose group holds both ends (hopOf that link).
double wholeTreeUs(const aggtree::Tree& t, const Hierarchy& h, const std::vector<int>& links,
                   const CostParams& p, const Load& ld, int k, double unit);

// A whole tree's price from its latest arrival: reductions add the pulses streaming behind
// the first (radix k), allreduce and barrier go up and down.
double wholeTreeFromArrivalUs(double latest, const std::vector<int>& links, const CostParams& p, const Load& ld,
                              int k, double unit);

// The minimum-height hierarchical k-nomial tree over every level (type I, SPEC 3.2
// algorithms 2-4) for row `a`: best k of 2..16, 32, 64 by wholeTreeUs, root 0 (a plan is
// shared by every root of its signature class). On equal blocks of consecutive ranks no
// candidate's tree is built: O(groups) per candidate, not O(P).
StageChoice minimumHeightTree(const AlgorithmInfo& a, const CollCall& c, const Load& ld, const CostParams& p,
                              const std::vector<int>& links);

}  // namespace hieragg::hier::model
