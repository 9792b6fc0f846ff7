#include "hieragg/aggtree/Tree.hpp"

#include <algorithm>

namespace hieragg::aggtree {

void Tree::rebuildChildren() {
    children.assign(parent.size(), {});
    for (int v = 0; v < size(); ++v)
        if (parent[v] != kNone) children[parent[v]].push_back(v);
}

std::vector<int> Tree::depths() const {
    std::vector<int> d(parent.size(), -1);
    if (root == kNone) return d;
    std::vector<int> stack{root};
    d[root] = 0;
    while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        for (int c : children[v]) {
            d[c] = d[v] + 1;
            stack.push_back(c);
        }
    }
    return d;
}

int Tree::height() const {
    auto d = depths();
    return d.empty() ? 0 : std::max(0, *std::max_element(d.begin(), d.end()));
}

int Tree::maxDegree() const {
    size_t m = 0;
    for (const auto& c : children) m = std::max(m, c.size());
    return static_cast<int>(m);
}

bool Tree::isValid() const {
    if (root < 0 || root >= size() || parent[root] != kNone) return false;
    if (children.size() != parent.size()) return false;
    auto d = depths();
    return std::all_of(d.begin(), d.end(), [](int x) { return x >= 0; });
}

}  // namespace hieragg::aggtree
