// Brute-force reference for Hierarchy, written straight from the header's definitions
// with no shared logic (quadratic, for small test cases only).
#pragma once
#include <cstdint>
#include <vector>

namespace hieragg::hier::testref {

using Keys = std::vector<std::vector<int64_t>>;  // [level][rank]

inline int levelCount(const Keys& keys) { return static_cast<int>(keys.size()); }
inline int rankCount(const Keys& keys) { return keys.empty() ? 0 : static_cast<int>(keys[0].size()); }

// Ranks that agree with r on every key of levels l..L-1, ascending.
inline std::vector<int> groupOf(const Keys& keys, int l, int r) {
    std::vector<int> out;
    for (int s = 0; s < rankCount(keys); ++s) {
        bool same = true;
        for (int j = l; j < levelCount(keys); ++j) same = same && keys[j][s] == keys[j][r];
        if (same) out.push_back(s);
    }
    return out;
}

// All groups of level l, in order of their lowest rank.
inline std::vector<std::vector<int>> denseGroups(const Keys& keys, int l) {
    std::vector<std::vector<int>> out;
    std::vector<bool> seen(rankCount(keys), false);
    for (int r = 0; r < rankCount(keys); ++r) {
        if (seen[r]) continue;
        out.push_back(groupOf(keys, l, r));
        for (int s : out.back()) seen[s] = true;
    }
    return out;
}

inline int leaderOf(const Keys& keys, int l, int r, int root) {
    if (l == levelCount(keys)) return root >= 0 ? root : 0;
    const std::vector<int> g = groupOf(keys, l, r);
    for (int s : g)
        if (s == root) return root;
    return g.front();
}

struct RefSpace {
    std::vector<int> members;
    int leader = -1;
};

inline RefSpace space(const Keys& keys, int l, int r, int root) {
    RefSpace out;
    if (l == 0) {
        out.members = groupOf(keys, 0, r);
        out.leader = leaderOf(keys, 0, r, root);
        return out;
    }
    if (leaderOf(keys, l - 1, r, root) != r) return out;
    for (int s = 0; s < rankCount(keys); ++s) {
        bool inDomain = true;  // the leader space's domain is the whole communicator
        for (int j = l; j < levelCount(keys); ++j) inDomain = inDomain && keys[j][s] == keys[j][r];
        if (inDomain && leaderOf(keys, l - 1, s, root) == s) out.members.push_back(s);
    }
    out.leader = leaderOf(keys, l, r, root);
    return out;
}

}  // namespace hieragg::hier::testref
