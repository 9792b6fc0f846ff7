// Type II (switch) trees executed in software (SPEC 3.2, issue 6 item 4). A
// decomposition whose levels come from a `topology:` file knows which ranks share
// each switch; this builds a coll_aggtree Fabric of those switches, allocates the
// minimum-cost type II tree within the per-switch entry budget and degree limit
// (coll_hieragg_switch_entries, coll_hieragg_switch_degree), and maps it onto the
// communicator's ranks: one proxy rank under each kept switch acts for it, so the
// ordinary tree emitters (TreeBcast, OrderedTreeReduce) run it unchanged.
//
// Every rank computes the same tree from the same hierarchy and parameters, so all
// ranks agree on availability and shape without communicating. Software switches
// share no state between communicators, so each communicator's tree is allocated
// against a fresh budget of `entries` per switch (docs/aggtree-fabric.md).
#pragma once
#include <string>
#include <vector>

#include "hieragg/aggtree/Fabric.hpp"
#include "hieragg/aggtree/Tree.hpp"
#include "hieragg/aggtree/TypeTwoTree.hpp"

namespace hieragg::hier {

class Hierarchy;

// The first hierarchy level whose groups are switches (the stage inside it crosses
// network or switch links: Decomposition's `topology:` levels), or -1 if none.
// `stageLinks` as CostParams' stageLinks(); empty or of the wrong size: -1.
int leafSwitchLevel(const Hierarchy& h, const std::vector<int>& stageLinks);

struct SwitchTree {
    bool allocated = false;
    std::string reason;            // why not (when !allocated)
    int degree = 0;                // K: children per switch allowed
    int switchesKept = 0;          // aggregation entries the tree uses
    int switchesInFabric = 0;
    aggtree::Fabric fabric;
    aggtree::TypeTwoTree tree;     // over `fabric`; leaves are NICs
    // Ranks behind each NIC (fabric vertex -> ranks ascending; empty for switches). A NIC
    // is one rank, or one group of the level below the leaf switches (a node: its ranks
    // are combined by the NIC first).
    std::vector<std::vector<int>> ranksOfNic;

    // Parent of every communicator rank when the tree is rooted at `root`: each kept
    // switch's proxy is the root if it lies below, else its lowest rank; the proxy of a
    // NIC gathers the NIC's other ranks. Children are ordered largest subtree first.
    aggtree::Tree rankTree(int commSize, int root) const;
    // "K=32, switches=3 of 5" for plans and verbose output.
    std::string label() const;
};

// Builds the fabric of `h`'s switch levels (one switch per group of every level from
// leafSwitchLevel up, plus one root switch joining the outermost groups when there are
// several) and allocates the minimum-cost type II tree with `entries` free entries per
// switch and at most `degree` children per switch. Not allocated (with a reason) when
// there are no switch levels, entries < 1, degree < 2, or no tree fits.
SwitchTree allocateSwitchTree(const Hierarchy& h, const std::vector<int>& stageLinks, int entries, int degree);

}  // namespace hieragg::hier
