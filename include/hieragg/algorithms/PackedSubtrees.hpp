// Gather and scatter over an in-order tree (k-nomial of any k, or the chain) with pieces
// of different sizes (a leader's piece is its whole subspace): the members of g, member
// i's piece memberBytes[i] packed bytes, numbered virtually from the root. Each member
// holds its subtree's pieces contiguously, in virtual order, in its work buffer, a
// child's subtree one slice of it, and passes them on in one message: the gather up to
// its parent, the scatter (its mirror) down to each child.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/Emitted.hpp"
#include "hieragg/algorithms/MemberTree.hpp"

namespace hieragg {

// Where this rank stands in the tree.
struct TreePlace {
    int v;                          // virtual position (0: the root)
    int parent;                     // member index, -1 at the root
    const std::vector<int>& kids;   // member indices, ascending virtual order
};

// Where the subtree of a child sits in its parent's work buffer, and how many bytes it holds.
struct SubtreeSlice {
    ptrdiff_t offset;
    size_t bytes;
};

struct PackedSubtrees {
    const MemberTree& tree;  // over the members of g, rooted at the gather's or scatter's root; inOrder
    const Group& g;
    const std::vector<size_t>& memberBytes;

    // Gather. `mine` is this rank's piece; if mineInWork it already sits
    // at work[0] (or, on the root, its slot may stay unused), else an inner node first
    // copies it there and a leaf sends it straight from `mine`. On the root, `work` ends up
    // holding every piece in virtual order (root, root+1, ... mod n). `work`: workBytes(false).
    Emitted gather(ScheduleBuilder& b, Block mine, bool mineInWork, BufRef work, StepId after, uint32_t channel) const;
    // Scatter. On the root, `work` holds all pieces once `after` is done.
    // Elsewhere this rank's piece ends in `mine`, or stays at work[0] if keepInWork (it is
    // scattered further one level down). A leaf that does not keep receives straight into
    // `mine`. `work`: workBytes(keepInWork).
    Emitted scatter(ScheduleBuilder& b, Block mine, bool keepInWork, BufRef work, StepId after, uint32_t channel) const;

    // None off the group or alone (then the tree moves nothing).
    std::optional<TreePlace> place() const;
    // Packed bytes of virtual members [from, to).
    size_t rangeBytes(int from, int to) const;
    // Packed bytes of the subtree at virtual position v.
    size_t subtreeBytes(int v) const;
    // The slice of member `kid` (a child of the member at virtual position v) in v's work buffer.
    SubtreeSlice childSlice(int v, int kid) const;
    // Bytes this rank's work buffer needs: its subtree's; 0 off the group, alone, or at a
    // leaf unless leafKeepsWork (a gather's leaf sends from its own block, a scatter's
    // receives into it unless its piece is scattered further one level down).
    size_t workBytes(bool leafKeepsWork) const;
};

}  // namespace hieragg
