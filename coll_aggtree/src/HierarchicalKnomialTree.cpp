#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "PositionIndex.hpp"
#include "hieragg/aggtree/KnomialTree.hpp"

namespace hieragg::aggtree {

namespace {

constexpr std::uint64_t kPositionLimit = std::uint64_t{1} << 62;

std::uint64_t smallestPowerAtLeast(std::uint64_t n, int k) {
    std::uint64_t cnt = 1;
    while (cnt < n) {
        if (cnt > kPositionLimit / static_cast<std::uint64_t>(k))
            throw std::overflow_error("hierarchical k-nomial tree: positions exceed 2^62");
        cnt *= static_cast<std::uint64_t>(k);
    }
    return cnt;
}

int exponentOf(std::uint64_t cnt, int k) {
    int e = 0;
    for (; cnt > 1; cnt /= static_cast<std::uint64_t>(k)) ++e;
    return e;
}

void requireWidth(int k) {
    if (k < 2) throw std::invalid_argument("hierarchical k-nomial tree: k must be >= 2");
}

}  // namespace

int ProcessGroup::rankAt(std::uint64_t position) const {
    for (size_t i = 0; i < nodes_id.size(); ++i)
        if (nodes_id[i] == position) return ranks[i];
    return -1;
}

ProcessGroup leafProcessGroup(std::vector<int> ranksLeaderFirst, int k) {
    requireWidth(k);
    ProcessGroup g;
    g.cnt = smallestPowerAtLeast(ranksLeaderFirst.size(), k);
    g.nodes_id.resize(ranksLeaderFirst.size());
    std::iota(g.nodes_id.begin(), g.nodes_id.end(), std::uint64_t{0});
    g.ranks = std::move(ranksLeaderFirst);
    return g;
}

// Why checking a block's first position suffices: every group keeps the invariant
// "if position p is occupied, every aligned block (of any power-of-k size) containing p
// has its first position occupied". Leaf groups are dense prefixes, so they have it.
// Placing g at the FIRST aligned block C of size g.cnt whose start is free keeps it:
// inside C it is g's own invariant; a larger aligned block E containing C starts at a
// multiple of g.cnt that is <= C's start, so it was checked before C and is occupied.
// And with the invariant, a free first position means no position of the block is used.
ProcessGroup mergeGroups(std::vector<ProcessGroup> groups, int k, int leaderGroup) {
    requireWidth(k);
    if (groups.empty()) throw std::invalid_argument("mergeGroups: no groups");
    if (leaderGroup >= static_cast<int>(groups.size())) throw std::invalid_argument("mergeGroups: bad leader group");

    std::vector<int> order(groups.size());
    std::iota(order.begin(), order.end(), 0);
    // Largest cnt first, then more members, then lower leader rank (deterministic result).
    std::sort(order.begin(), order.end(), [&](int x, int y) {
        const auto& a = groups[x];
        const auto& b = groups[y];
        if (a.cnt != b.cnt) return a.cnt > b.cnt;
        if (a.ranks.size() != b.ranks.size()) return a.ranks.size() > b.ranks.size();
        return a.ranks.front() < b.ranks.front();
    });
    if (leaderGroup >= 0) std::rotate(order.begin(), std::find(order.begin(), order.end(), leaderGroup),
                                      std::find(order.begin(), order.end(), leaderGroup) + 1);

    size_t total = 0;
    for (const auto& g : groups) total += g.ranks.size();

    ProcessGroup out = std::move(groups[order[0]]);
    out.ranks.reserve(total);
    out.nodes_id.reserve(total);
    PositionIndex occupied(total);
    for (size_t i = 0; i < out.ranks.size(); ++i) occupied.insert(out.nodes_id[i], out.ranks[i]);

    // cursor[e]: every aligned block of size k^e before this index is known to be occupied.
    // Occupancy only grows, so the cursors only move forward.
    std::vector<std::uint64_t> cursor(64, 0);
    for (size_t n = 1; n < order.size(); ++n) {
        ProcessGroup& g = groups[order[n]];
        const int e = exponentOf(g.cnt, k);
        std::uint64_t& c = cursor[e];
        for (;;) {
            const std::uint64_t blocks = out.cnt / g.cnt;
            while (c < blocks && occupied.contains(c * g.cnt)) ++c;
            if (c < blocks) break;
            if (out.cnt > kPositionLimit / static_cast<std::uint64_t>(k))
                throw std::overflow_error("mergeGroups: positions exceed 2^62");
            out.cnt *= static_cast<std::uint64_t>(k);
        }
        const std::uint64_t offset = c * g.cnt;
        for (size_t i = 0; i < g.ranks.size(); ++i) {
            out.ranks.push_back(g.ranks[i]);
            out.nodes_id.push_back(g.nodes_id[i] + offset);
            occupied.insert(g.nodes_id[i] + offset, g.ranks[i]);
        }
        ProcessGroup().ranks.swap(g.ranks);  // release the merged group's memory early
        std::vector<std::uint64_t>().swap(g.nodes_id);
    }
    return out;
}

ProcessGroup buildRankMapping(const ProcessHierarchy& hierarchy, int k, int root) {
    requireWidth(k);
    const GroupNesting nest = normaliseHierarchy(hierarchy);
    const int P = nest.process_count;
    if (root < kAnyRoot || root >= P) throw std::invalid_argument("buildRankMapping: root outside [0, P)");
    const bool rooted = root != kAnyRoot;
    const int L = nest.levelCount();

    if (L == 0) {
        std::vector<int> ranks(P);
        std::iota(ranks.begin(), ranks.end(), 0);
        if (rooted) std::rotate(ranks.begin(), ranks.begin() + root, ranks.begin() + root + 1);
        return leafProcessGroup(std::move(ranks), k);
    }

    // Leaf groups: members in rank order, the root moved to the front of its group.
    std::vector<std::vector<int>> members(nest.group_count[0]);
    {
        std::vector<int> sizes(nest.group_count[0], 0);
        for (int r = 0; r < P; ++r) ++sizes[nest.group_of[0][r]];
        for (int g = 0; g < nest.group_count[0]; ++g) members[g].reserve(sizes[g]);
        for (int r = 0; r < P; ++r) members[nest.group_of[0][r]].push_back(r);
        if (rooted) {
            auto& rootGroup = members[nest.group_of[0][root]];
            auto it = std::find(rootGroup.begin(), rootGroup.end(), root);
            std::rotate(rootGroup.begin(), it, it + 1);
        }
    }
    std::vector<ProcessGroup> current;
    current.reserve(members.size());
    for (auto& m : members) current.push_back(leafProcessGroup(std::move(m), k));
    members.clear();

    for (int j = 0; j < L; ++j) {
        const int outerCount = nest.group_count[j + 1];
        const int rootChild = rooted ? nest.group_of[j][root] : -1;
        std::vector<std::vector<ProcessGroup>> children(outerCount);
        std::vector<int> leaderIndex(outerCount, -1);
        for (int g = 0; g < nest.group_count[j]; ++g) {
            const int o = nest.parent_group[j][g];
            if (g == rootChild) leaderIndex[o] = static_cast<int>(children[o].size());
            children[o].push_back(std::move(current[g]));
        }
        std::vector<ProcessGroup> next;
        next.reserve(outerCount);
        for (int o = 0; o < outerCount; ++o) next.push_back(mergeGroups(std::move(children[o]), k, leaderIndex[o]));
        current = std::move(next);
    }
    return std::move(current.front());
}

Tree buildHierarchicalTree(const ProcessGroup& top, int k) {
    requireWidth(k);
    const int P = static_cast<int>(top.ranks.size());
    PositionIndex index(top.ranks.size());
    for (int i = 0; i < P; ++i) index.insert(top.nodes_id[i], top.ranks[i]);
    Tree t;
    t.parent.assign(P, Tree::kNone);
    for (int i = 0; i < P; ++i) {
        const int rank = top.ranks[i];
        if (rank < 0 || rank >= P) throw std::invalid_argument("buildHierarchicalTree: ranks must be 0..P-1");
        std::uint64_t pos = top.nodes_id[i];
        if (pos == 0) {
            t.root = rank;
            continue;
        }
        int parent = PositionIndex::kAbsent;
        while (parent == PositionIndex::kAbsent) {
            pos = knomialParentPosition(pos, k);
            parent = index.find(pos);
        }
        t.parent[rank] = parent;
    }
    if (t.root == Tree::kNone) throw std::invalid_argument("buildHierarchicalTree: no process at position 0");
    t.rebuildChildren();
    return t;
}

Tree buildHierarchicalKnomialTree(const ProcessHierarchy& hierarchy, int k, int root) {
    return buildHierarchicalTree(buildRankMapping(hierarchy, k, root), k);
}

int largestWidthWithinDegree(const ProcessHierarchy& hierarchy, int root, int requestedK, int maxChildren) {
    for (int k = requestedK; k >= 2; --k)
        if (buildHierarchicalKnomialTree(hierarchy, k, root).maxDegree() <= maxChildren) return k;
    return 0;
}

}  // namespace hieragg::aggtree
