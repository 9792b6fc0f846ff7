// The one tree a Whole plan's tree recipes (bcast, reduce, allreduce) run over: the
// minimum-height hierarchical k-nomial tree (type I, SPEC 3.2 algorithms 2-4) or the
// minimum-cost type II switch tree with one proxy rank per kept switch (SwitchTree.hpp).
#pragma once
#include <string>

#include "hieragg/CollCall.hpp"
#include "hieragg/algorithms/MemberTree.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::hier {

// Link class of every stage of c's hierarchy: c.stageLinks when it fits, else inferred.
std::vector<int> linksOf(const CollCall& c);

// The minimum-height hierarchical k-nomial tree of radix s.shape.k (type I; the
// hier_knomial rows' tree builder).
MemberTree knomialWholeTree(const CollCall& c, const StageChoice& s, int root, std::string* name = nullptr);

// The tree of stage `s` (a Whole plan's stage) over c's ranks rooted at `root`: its row's
// tree builder (AlgorithmInfo::tree), else the hierarchical k-nomial tree. `name` (if
// given) receives what the schedule reports, e.g. "hier_knomial(k=4)" or
// "type2(K=32, switches=3 of 5)". Every rank builds the same tree.
MemberTree wholePlanTree(const CollCall& c, const StageChoice& s, int root, std::string* name = nullptr);

}  // namespace hieragg::hier
