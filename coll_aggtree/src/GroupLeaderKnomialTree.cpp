#include "hieragg/aggtree/GroupLeaderKnomialTree.hpp"

#include <algorithm>
#include <stdexcept>

#include "hieragg/aggtree/KnomialTree.hpp"

namespace hieragg::aggtree {

namespace {

// Links members[1..] to members[0..] as a k-nomial tree over their index.
void linkKnomial(const std::vector<int>& members, int k, Tree& t) {
    for (size_t v = 1; v < members.size(); ++v)
        t.parent[members[v]] = members[knomialParentPosition(v, k)];
}

// Leader first, the others in increasing order.
void leaderFirst(std::vector<int>& ids, int leader) {
    std::sort(ids.begin(), ids.end());
    auto it = std::find(ids.begin(), ids.end(), leader);
    std::rotate(ids.begin(), it, it + 1);
}

}  // namespace

Tree buildGroupLeaderKnomialTree(const ProcessHierarchy& hierarchy, int k, int root) {
    if (k < 2) throw std::invalid_argument("buildGroupLeaderKnomialTree: k must be >= 2");
    const GroupNesting nest = normaliseHierarchy(hierarchy);
    const int P = nest.process_count;
    if (root < 0 || root >= P) throw std::invalid_argument("buildGroupLeaderKnomialTree: root outside [0, P)");
    const int L = nest.levelCount();
    Tree t;
    t.root = root;
    t.parent.assign(P, Tree::kNone);

    // members of each group at the current level, as ranks (level 0: processes; above: sub-group leaders).
    const int leafCount = L > 0 ? nest.group_count[0] : 1;
    std::vector<std::vector<int>> members(leafCount);
    for (int r = 0; r < P; ++r) members[L > 0 ? nest.group_of[0][r] : 0].push_back(r);
    std::vector<int> leader(leafCount);
    for (int g = 0; g < leafCount; ++g) {
        auto& m = members[g];
        leader[g] = std::find(m.begin(), m.end(), root) != m.end() ? root : *std::min_element(m.begin(), m.end());
        leaderFirst(m, leader[g]);
        linkKnomial(m, k, t);
    }
    for (int j = 0; j < L; ++j) {
        const int outerCount = nest.group_count[j + 1];
        std::vector<std::vector<int>> leaders(outerCount);
        for (int g = 0; g < nest.group_count[j]; ++g) leaders[nest.parent_group[j][g]].push_back(leader[g]);
        std::vector<int> outerLeader(outerCount);
        for (int o = 0; o < outerCount; ++o) {
            auto& m = leaders[o];
            outerLeader[o] =
                std::find(m.begin(), m.end(), root) != m.end() ? root : *std::min_element(m.begin(), m.end());
            leaderFirst(m, outerLeader[o]);
            linkKnomial(m, k, t);
        }
        leader = std::move(outerLeader);
    }
    t.rebuildChildren();
    return t;
}

}  // namespace hieragg::aggtree
