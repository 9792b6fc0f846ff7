#include "hieragg/hier/SwitchTree.hpp"

#include <algorithm>
#include <stdexcept>

#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::hier {

int leafSwitchLevel(const Hierarchy& h, const std::vector<int>& links) {
    if (static_cast<int>(links.size()) != h.levels() + 1) return -1;
    for (int l = 0; l < h.levels(); ++l)
        if (links[l] >= kLinkNetwork) return l;
    return -1;
}

SwitchTree allocateSwitchTree(const Hierarchy& h, const std::vector<int>& links, int entries, int degree) {
    SwitchTree s;
    s.degree = degree;
    const int leaf = leafSwitchLevel(h, links);
    if (leaf < 0) {
        s.reason = "the decomposition has no switch levels (coll_hieragg_split=topology:PATH)";
        return s;
    }
    if (entries < 1) {
        s.reason = "coll_hieragg_switch_entries=" + std::to_string(entries) + " leaves no aggregation entry";
        return s;
    }
    if (degree < 2) {
        s.reason = "coll_hieragg_switch_degree=" + std::to_string(degree) + " allows no aggregation (needs >= 2)";
        return s;
    }
    // Switches: one per group of levels leaf..top, plus a root over several outermost groups.
    aggtree::Fabric& f = s.fabric;
    const int top = h.levels() - 1;
    std::vector<std::vector<int>> sw(h.levels());
    for (int l = top; l >= leaf; --l) {
        sw[l].resize(h.groupCount(l));
        for (int g = 0; g < h.groupCount(l); ++g)
            sw[l][g] = f.addSwitch("L" + std::to_string(l) + "g" + std::to_string(g), l - leaf);
    }
    int rootSwitch = -1;
    if (h.groupCount(top) > 1) {
        rootSwitch = f.addSwitch("root", top - leaf + 1);
        for (int v : sw[top]) f.connect(rootSwitch, v);
    }
    for (int l = top - 1; l >= leaf; --l)
        for (int g = 0; g < h.groupCount(l); ++g)
            f.connect(sw[l + 1][h.groupOf(l + 1, h.groupMembers(l, g).front())], sw[l][g]);
    // NICs: the groups just below the leaf switches, or single ranks.
    std::vector<int> nics;
    auto addNic = [&](std::vector<int> ranks) {
        const int leafGroup = h.groupOf(leaf, ranks.front());
        const int v = f.addNic("nic" + std::to_string(nics.size()), static_cast<int>(nics.size()));
        f.connect(sw[leaf][leafGroup], v);
        s.ranksOfNic.resize(f.vertexCount());
        s.ranksOfNic[v] = std::move(ranks);
        nics.push_back(v);
    };
    if (leaf == 0)
        for (int r = 0; r < h.commSize(); ++r) addNic({r});
    else
        for (int g = 0; g < h.groupCount(leaf - 1); ++g) addNic(h.groupMembers(leaf - 1, g));
    s.ranksOfNic.resize(f.vertexCount());
    s.switchesInFabric = static_cast<int>(f.switches().size());

    aggtree::FabricLoad load = aggtree::FabricLoad::withEntries(f, entries);
    aggtree::TypeTwoAllocation a = aggtree::allocateTypeTwoTree(f, nics, aggtree::TypeTwoMethod::MinimumCost,
                                                                aggtree::uniformDegreeLimit(f, degree), load);
    if (a.status != aggtree::TypeTwoStatus::Allocated) {
        s.reason = "no minimum-cost tree with at most coll_hieragg_switch_degree=" + std::to_string(degree) +
                   " children per switch (" + a.reason + ")";
        return s;
    }
    s.allocated = true;
    s.tree = std::move(a.tree);
    s.switchesKept = s.tree.switchCount(f);
    return s;
}

aggtree::Tree SwitchTree::rankTree(int n, int root) const {
    aggtree::Tree t;
    t.root = root;
    t.parent.assign(n, aggtree::Tree::kNone);
    if (!allocated) throw std::logic_error("SwitchTree::rankTree: no tree allocated");
    const aggtree::Tree& st = tree.tree;
    // Proxies bottom-up: the root wherever it lies below, else the lowest rank.
    auto better = [&](int x, int y) { return x == root || (y != root && x < y); };
    std::vector<int> order{st.root};
    for (size_t i = 0; i < order.size(); ++i)
        for (int c : st.children[order[i]]) order.push_back(c);
    std::vector<int> proxy(st.size(), -1);
    for (size_t i = order.size(); i-- > 0;) {
        const int v = order[i];
        const std::vector<int>& ranks = ranksOfNic[tree.fabricVertex[v]];
        for (int r : ranks)
            if (proxy[v] < 0 || better(r, proxy[v])) proxy[v] = r;
        for (int c : st.children[v])
            if (proxy[v] < 0 || better(proxy[c], proxy[v])) proxy[v] = proxy[c];
        for (int r : ranks)
            if (r != proxy[v]) t.parent[r] = proxy[v];  // combined by the NIC first
    }
    for (int v = 0; v < st.size(); ++v)
        if (st.parent[v] != aggtree::Tree::kNone && proxy[v] != proxy[st.parent[v]])
            t.parent[proxy[v]] = proxy[st.parent[v]];
    // Largest subtree first (the order the model serves children in), then rank.
    t.children.assign(n, {});
    for (int r = 0; r < n; ++r)
        if (t.parent[r] != aggtree::Tree::kNone) t.children[t.parent[r]].push_back(r);
    std::vector<int> size(n, 1), bfs{root};
    for (size_t i = 0; i < bfs.size(); ++i)
        for (int c : t.children[bfs[i]]) bfs.push_back(c);
    for (size_t i = bfs.size(); i-- > 1;) size[t.parent[bfs[i]]] += size[bfs[i]];
    for (auto& kids : t.children)
        std::sort(kids.begin(), kids.end(), [&](int x, int y) { return size[x] != size[y] ? size[x] > size[y] : x < y; });
    return t;
}

std::string SwitchTree::label() const {
    return "K=" + std::to_string(degree) + ", switches=" + std::to_string(switchesKept) + " of " +
           std::to_string(switchesInFabric);
}

}  // namespace hieragg::hier
