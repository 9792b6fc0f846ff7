#include "hieragg/algorithms/MemberTree.hpp"

#include <algorithm>

#include "hieragg/aggtree/KaryTree.hpp"
#include "hieragg/aggtree/KnomialTree.hpp"

namespace hieragg {

MemberTree MemberTree::of(const aggtree::Tree& t) {
    MemberTree m;
    const int n = t.size();
    m.root = t.root;
    m.parent = t.parent;
    m.children = t.children;
    for (auto& c : m.children)
        std::sort(c.begin(), c.end(), [&](int x, int y) { return m.virtualOf(x) < m.virtualOf(y); });
    // Subtree sizes and largest virtual rank, children before parents (reverse BFS order).
    std::vector<int> order{m.root};
    for (size_t i = 0; i < order.size(); ++i)
        for (int c : m.children[order[i]]) order.push_back(c);
    std::vector<int> count(n, 1), maxV(n, 0);
    for (int i = 0; i < n; ++i) maxV[i] = m.virtualOf(i);
    for (size_t i = order.size(); i-- > 0;) {
        const int v = order[i];
        for (int c : m.children[v]) {
            count[v] += count[c];
            maxV[v] = std::max(maxV[v], maxV[c]);
        }
    }
    m.inOrder = true;
    m.subtreeEnd.assign(n, 0);
    for (int i = 0; i < n; ++i) {
        const int v = m.virtualOf(i);
        m.subtreeEnd[v] = maxV[i] + 1;
        if (maxV[i] - v + 1 != count[i]) m.inOrder = false;
        if (!m.children[i].empty() && m.virtualOf(m.children[i].front()) < v) m.inOrder = false;
    }
    return m;
}

MemberTree TreeShape::build(int members, int rootIdx) const {
    switch (kind) {
    case Kind::Knomial: return MemberTree::of(aggtree::buildKnomialTree(members, k < 2 ? 2 : k, rootIdx));
    case Kind::Kary: return MemberTree::of(aggtree::buildKaryTree(members, k < 1 ? 1 : k, rootIdx));
    case Kind::Chain: return MemberTree::of(aggtree::buildKaryTree(members, 1, rootIdx));
    }
    return {};
}

std::string TreeShape::name() const {
    switch (kind) {
    case Kind::Knomial: return "knomial";
    case Kind::Kary: return "kary";
    case Kind::Chain: return "chain";
    }
    return "?";
}

}  // namespace hieragg
