// Gather over an in-order tree (k-nomial of any k, or the chain) with contributions
// of different sizes (a leader contributes its whole subspace). Members are
// numbered virtually from the root; each inner node holds its subtree's
// contributions contiguously, in virtual order, as packed bytes, and sends them
// to its parent in one message.
#pragma once
#include <optional>
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/Emitted.hpp"
#include "hieragg/algorithms/MemberTree.hpp"

namespace hieragg {

struct TreeGather {
    const MemberTree& tree;  // over the members of g, rooted at the gather's root; inOrder
    // memberBytes[i]: packed bytes member i contributes. `mine` is this rank's
    // contribution; if mineInWork it already sits at work[0] (or, on the root, its
    // slot may stay unused), else an inner node first copies it there and a leaf
    // sends it straight from `mine`. On the root, `work` ends up holding every
    // contribution in virtual order (root, root+1, ... mod n).
    Emitted emit(ScheduleBuilder& b, const Group& g, const std::vector<size_t>& memberBytes, Block mine,
                 bool mineInWork, BufRef work, StepId after, uint32_t channel) const;
    // Bytes this rank's work buffer needs (0: a leaf that sends from `mine`).
    size_t workBytes(const Group& g, const std::vector<size_t>& memberBytes) const;
};

// Packed bytes of virtual members [from, to) of `tree`.
size_t virtualRangeBytes(const MemberTree& tree, const std::vector<size_t>& memberBytes, int from, int to);

// Packed bytes of the subtree at virtual position v of `tree` (inOrder).
size_t subtreeBytes(const MemberTree& tree, const std::vector<size_t>& memberBytes, int v);

// Where this rank stands in a tree gather or scatter over g; none off the group or alone
// (then the tree moves nothing).
struct TreePlace {
    int v;                          // virtual position (0: the root)
    int parent;                     // member index, -1 at the root
    const std::vector<int>& kids;   // member indices, ascending virtual order
};
std::optional<TreePlace> placeIn(const MemberTree& tree, const Group& g);

// The work buffer of a tree gather or scatter at this rank: its subtree's bytes in virtual
// order; 0 off the group, alone, or at a leaf unless leavesKeepWork (TreeScatter's keepInWork).
size_t subtreeWorkBytes(const MemberTree& tree, const Group& g, const std::vector<size_t>& memberBytes,
                        bool leavesKeepWork);

// Where the subtree of member `kid` (a child of the member at virtual position v) sits in
// v's work buffer, and how many bytes it holds.
struct SubtreeSlice {
    ptrdiff_t offset;
    size_t bytes;
};
SubtreeSlice childSlice(const MemberTree& tree, const std::vector<size_t>& memberBytes, int v, int kid);

}  // namespace hieragg
