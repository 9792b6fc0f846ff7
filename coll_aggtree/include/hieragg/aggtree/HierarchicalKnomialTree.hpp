// Hierarchical minimum-height k-nomial tree (type I, SPEC algorithms 2–4).
//
// Every group of the hierarchy occupies an aligned block [x, x + cnt) of positions of
// one big k-nomial tree (cnt a power of k, x a multiple of cnt, the group's leader at x).
// A process's parent is the process at its nearest ancestor position that holds one, so
// every process except a group's leader has its parent inside its own group.
//
// Positions are sparse (cnt may be much larger than the member count, e.g. a 2-process
// node group needs cnt = 32 for k = 32), so a group is stored by its members' positions
// (nodes_id) only; ranks_id — the process at each position — is the inverse, looked up
// through a hash index, which keeps memory linear in P.
#pragma once
#include <cstdint>
#include <vector>

#include "hieragg/aggtree/ProcessHierarchy.hpp"
#include "hieragg/aggtree/Tree.hpp"

namespace hieragg::aggtree {

struct ProcessGroup {
    std::uint64_t cnt = 1;               // positions of this group's k-nomial tree, a power of k
    std::vector<int> ranks;              // members; ranks[0] is the leader, at position 0
    std::vector<std::uint64_t> nodes_id; // nodes_id[i] = position of ranks[i] (relative to the group)

    // ranks_id[position]: the member at `position`, or -1 when empty. Linear scan (for inspection).
    int rankAt(std::uint64_t position) const;
};

// A group without sub-groups: members at positions 0..n−1 in the given order (leader first);
// this is what merging single processes greedily produces.
ProcessGroup leafProcessGroup(std::vector<int> ranksLeaderFirst, int k);

// Algorithm 2 (merge_groups). Greedy: start from the largest group (or from groups[leaderGroup]
// when given, so that its leader stays at position 0 — used for the root's group), then place
// the others largest cnt first, each at the first free aligned block of its cnt; if there is
// none, grow the result (cnt *= k). A block is free iff its first position is (see the .cpp).
// Throws std::invalid_argument for an empty input or k < 2, std::overflow_error if cnt would
// exceed 2^62.
ProcessGroup mergeGroups(std::vector<ProcessGroup> groups, int k, int leaderGroup = -1);

// Root argument meaning "no particular root" (allreduce, barrier): the greedy picks the leaders.
constexpr int kAnyRoot = -1;

// Algorithm 3 (build_rank_mapping): leaf groups, then mergeGroups level by level up to the
// implicit outermost group. `root` is placed at position 0 of every group containing it
// (kAnyRoot: every group is led by its largest sub-group, as in the paper).
ProcessGroup buildRankMapping(const ProcessHierarchy& hierarchy, int k, int root = 0);

// Algorithm 4 (build_hierarchical_tree): parent = member at the nearest occupied ancestor
// position. Vertices are ranks 0..P−1 where P = top.ranks.size(); the root is ranks[0].
Tree buildHierarchicalTree(const ProcessGroup& top, int k);

// buildRankMapping + buildHierarchicalTree.
Tree buildHierarchicalKnomialTree(const ProcessHierarchy& hierarchy, int k, int root = 0);

// Largest k in [2, requestedK] whose hierarchical tree has no node with more than
// maxChildren children; 0 if even k = 2 violates the limit (skipped empty positions can
// give a node more than (k−1)·height children).
int largestWidthWithinDegree(const ProcessHierarchy& hierarchy, int root, int requestedK, int maxChildren);

}  // namespace hieragg::aggtree
