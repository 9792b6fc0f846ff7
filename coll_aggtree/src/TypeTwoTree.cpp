#include "hieragg/aggtree/TypeTwoTree.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace hieragg::aggtree {

std::vector<int> TypeTwoTree::switchVertices(const Fabric& fabric) const {
    std::vector<int> out;
    for (int fv : fabricVertex)
        if (fabric.isSwitch(fv)) out.push_back(fv);
    return out;
}

int TypeTwoTree::radiusLinks() const {
    if (tree.root == Tree::kNone) return 0;
    // Links from the root, accumulated top-down.
    std::vector<int> dist(tree.size(), 0);
    std::vector<int> stack{tree.root};
    int best = 0;
    while (!stack.empty()) {
        int v = stack.back();
        stack.pop_back();
        best = std::max(best, dist[v]);
        for (int c : tree.children[v]) {
            dist[c] = dist[v] + static_cast<int>(linksToParent[c].size());
            stack.push_back(c);
        }
    }
    return best;
}

std::vector<int> uniformDegreeLimit(const Fabric& fabric, int k) { return std::vector<int>(fabric.vertexCount(), k); }

// ---------------------------------------------------------------------------------------------
// Root candidates

std::vector<int> rootCandidates(const Fabric& fabric, const std::vector<int>& nics, int* radius) {
    if (radius) *radius = -1;
    if (nics.empty()) throw std::invalid_argument("rootCandidates: no NICs");
    const auto& sws = fabric.switches();
    const int S = static_cast<int>(sws.size());
    const int m = static_cast<int>(nics.size());
    const int W = (m + 63) / 64;
    std::vector<int> ordinal(fabric.vertexCount(), -1);
    for (int i = 0; i < S; ++i) ordinal[sws[i]] = i;

    // reach[s] = set of NICs within t hops of switch s (NICs do not forward, so a NIC
    // contributes only through its own switches).
    std::vector<uint64_t> reach(static_cast<size_t>(S) * W, 0), next;
    for (int i = 0; i < m; ++i) {
        int nic = nics[i];
        if (!fabric.isNic(nic)) throw std::invalid_argument("rootCandidates: vertex " + std::to_string(nic) + " is not a NIC");
        for (auto [n, id] : fabric.adjacent(nic)) {
            (void)id;
            if (fabric.isSwitch(n)) reach[static_cast<size_t>(ordinal[n]) * W + i / 64] |= uint64_t{1} << (i % 64);
        }
    }
    std::vector<uint64_t> full(W, ~uint64_t{0});
    if (m % 64) full[W - 1] = (uint64_t{1} << (m % 64)) - 1;
    std::vector<std::vector<int>> switchNeighbours(S);
    for (int i = 0; i < S; ++i)
        for (auto [n, id] : fabric.adjacent(sws[i])) {
            (void)id;
            if (fabric.isSwitch(n)) switchNeighbours[i].push_back(ordinal[n]);
        }
    for (int t = 1; t <= S + 1; ++t) {
        std::vector<int> found;
        for (int i = 0; i < S; ++i)
            if (std::equal(full.begin(), full.end(), reach.begin() + static_cast<size_t>(i) * W)) found.push_back(sws[i]);
        if (!found.empty()) {
            if (radius) *radius = t;
            std::sort(found.begin(), found.end());
            return found;
        }
        next = reach;
        for (int i = 0; i < S; ++i) {
            uint64_t* dst = &next[static_cast<size_t>(i) * W];
            for (int n : switchNeighbours[i]) {
                const uint64_t* src = &reach[static_cast<size_t>(n) * W];
                for (int w = 0; w < W; ++w) dst[w] |= src[w];
            }
        }
        if (next == reach) break;  // nothing new: some NIC is unreachable from every switch
        reach.swap(next);
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// Physical tree

TypeTwoTree physicalTree(const Fabric& fabric, int root, const std::vector<int>& nics) {
    if (root < 0 || root >= fabric.vertexCount() || !fabric.isSwitch(root))
        throw std::invalid_argument("physicalTree: root is not a switch");
    const int V = fabric.vertexCount();
    std::vector<int> dist(V, -1), parentLink(V, -1), order{root};
    dist[root] = 0;
    for (size_t head = 0; head < order.size(); ++head) {
        int v = order[head];
        for (auto [n, id] : fabric.adjacent(v)) {
            if (fabric.isSwitch(n) && dist[n] < 0) {
                dist[n] = dist[v] + 1;
                parentLink[n] = id;
                order.push_back(n);
            }
        }
    }
    auto other = [&](int link, int v) { return fabric.link(link).a == v ? fabric.link(link).b : fabric.link(link).a; };

    std::vector<char> used(V, 0);
    std::vector<int> nicLink(nics.size(), -1);
    for (size_t i = 0; i < nics.size(); ++i) {
        int nic = nics[i];
        if (nic < 0 || nic >= V || !fabric.isNic(nic)) throw std::invalid_argument("physicalTree: not a NIC");
        if (used[nic]) throw std::invalid_argument("physicalTree: NIC " + fabric.name(nic) + " given twice");
        used[nic] = 1;
        int best = -1;
        for (auto [n, id] : fabric.adjacent(nic))
            if (fabric.isSwitch(n) && dist[n] >= 0 && (best < 0 || dist[n] < dist[other(best, nic)])) best = id;
        if (best < 0) throw std::invalid_argument("physicalTree: NIC " + fabric.name(nic) + " unreachable from root");
        nicLink[i] = best;
        // Mark the switches on the way up to the root.
        for (int s = other(best, nic); !used[s]; s = other(parentLink[s], s)) {
            used[s] = 1;
            if (s == root) break;
        }
    }
    used[root] = 1;

    TypeTwoTree t;
    std::vector<int> id(V, -1);
    for (int s : order)
        if (used[s]) {
            id[s] = static_cast<int>(t.fabricVertex.size());
            t.fabricVertex.push_back(s);
        }
    for (int nic : nics) {
        id[nic] = static_cast<int>(t.fabricVertex.size());
        t.fabricVertex.push_back(nic);
    }
    const int n = static_cast<int>(t.fabricVertex.size());
    t.tree.root = 0;
    t.tree.parent.assign(n, Tree::kNone);
    t.linksToParent.assign(n, {});
    for (int v = 1; v < n; ++v) {
        int fv = t.fabricVertex[v];
        int link = fabric.isNic(fv) ? nicLink[v - (n - static_cast<int>(nics.size()))] : parentLink[fv];
        t.tree.parent[v] = id[other(link, fv)];
        t.linksToParent[v] = {link};
    }
    t.tree.rebuildChildren();
    return t;
}

// ---------------------------------------------------------------------------------------------
// Minimum-cost reduction
//
// Why the DP is exact: a kept switch can adopt any vertex below it that is still waiting
// for a parent, and those waiting vertices are interchangeable for every ancestor (each
// ancestor is an ancestor of all of them). So a subtree is summarised by one number:
// how many of its kept vertices still wait for a parent above it, and a kept switch
// should adopt as many as it can. f_v[j] = fewest waiting vertices leaving v's subtree
// when at most j of its switches are kept. Children combine by (min,+) convolution.

namespace {

constexpr int kInfinity = std::numeric_limits<int>::max() / 4;

struct ReductionInput {
    const TypeTwoTree& p;
    std::vector<int> capacity;       // per tree vertex: K, or -1 if not keepable
    std::vector<int> directNics;     // per tree vertex
    std::vector<std::vector<int>> swChildren;
    std::vector<int> subtreeSwitches;
    std::vector<int> postOrder;      // switches only, children before parents
};

int at(const std::vector<int>& a, int j) { return a[std::min<size_t>(j, a.size() - 1)]; }

std::vector<int> minPlus(const std::vector<int>& a, const std::vector<int>& b, int cap) {
    size_t len = std::min<size_t>(a.size() + b.size() - 1, static_cast<size_t>(cap) + 1);
    std::vector<int> out(len, kInfinity);
    for (size_t i = 0; i < a.size() && i < len; ++i)
        for (size_t j = 0; j < b.size() && i + j < len; ++j) out[i + j] = std::min(out[i + j], a[i] + b[j]);
    return out;
}

// Prefix convolutions of v's switch children: conv[0] = {directNics}, conv[i] adds child i-1.
std::vector<std::vector<int>> childConvolutions(const ReductionInput& in, const std::vector<std::vector<int>>& f,
                                                int v, int cap) {
    std::vector<std::vector<int>> conv{{in.directNics[v]}};
    for (int c : in.swChildren[v]) conv.push_back(minPlus(conv.back(), f[c], cap));
    return conv;
}

// Fills f for every switch under budget cap; returns the root's minimal budget or -1.
int solve(const ReductionInput& in, std::vector<std::vector<int>>& f, int cap) {
    for (int v : in.postOrder) {
        std::vector<int> D{in.directNics[v]};
        for (int c : in.swChildren[v]) D = minPlus(D, f[c], cap);
        int len = std::min(in.subtreeSwitches[v], cap) + 1;
        std::vector<int>& fv = f[v];
        fv.assign(len, kInfinity);
        fv[0] = D[0];
        for (int j = 1; j < len; ++j) {
            fv[j] = at(D, j);
            if (in.capacity[v] >= 0) fv[j] = std::min(fv[j], std::max(0, at(D, j - 1) - in.capacity[v]) + 1);
        }
        if (v == in.p.tree.root) {
            if (in.capacity[v] < 0) return -1;
            for (int j = 1; j < len; ++j)
                if (at(D, j - 1) <= in.capacity[v]) return j;
            return -1;
        }
    }
    return -1;
}

// Marks kept switches for subtree v given budget j and whether v itself is kept.
void traceback(const ReductionInput& in, const std::vector<std::vector<int>>& f, int v, int j, int cap,
               std::vector<char>& kept) {
    auto conv = childConvolutions(in, f, v, cap);
    const auto& D = conv.back();
    bool keep;
    if (v == in.p.tree.root) {
        keep = true;
    } else {
        int target = f[v][std::min<size_t>(j, f[v].size() - 1)];
        keep = j >= 1 && in.capacity[v] >= 0 && at(D, j) != target;
    }
    kept[v] = keep;
    int t = std::min<int>(keep ? j - 1 : j, static_cast<int>(D.size()) - 1);
    for (int i = static_cast<int>(in.swChildren[v].size()); i >= 1; --i) {
        int c = in.swChildren[v][i - 1];
        const auto& prev = conv[i - 1];
        const auto& fc = f[c];
        int want = conv[i][t];
        int split = -1;
        for (int b = 0; b < static_cast<int>(fc.size()) && b <= t; ++b) {
            int a = t - b;
            if (a < static_cast<int>(prev.size()) && prev[a] + fc[b] == want) {
                split = b;
                break;
            }
        }
        if (split < 0) throw std::logic_error("minimumCostTree: traceback lost its way");
        if (split > 0) traceback(in, f, c, split, cap, kept);
        t -= split;
    }
}

}  // namespace

ReducedTree minimumCostTree(const Fabric& fabric, const TypeTwoTree& p, const std::vector<int>& maxChildren,
                            const std::vector<char>& keepable) {
    const int n = p.tree.size();
    if (n == 0 || p.tree.root == Tree::kNone) throw std::invalid_argument("minimumCostTree: empty tree");
    auto isSw = [&](int v) { return fabric.isSwitch(p.fabricVertex[v]); };
    if (!isSw(p.tree.root)) throw std::invalid_argument("minimumCostTree: root is not a switch");

    ReductionInput in{p, std::vector<int>(n, -1), std::vector<int>(n, 0), std::vector<std::vector<int>>(n),
                      std::vector<int>(n, 0), {}};
    int nicCount = 0, kMax = 0;
    // Iterative post-order (deep chains must not overflow the stack).
    std::vector<std::pair<int, bool>> stack{{p.tree.root, false}};
    while (!stack.empty()) {
        auto [v, expanded] = stack.back();
        stack.pop_back();
        if (!isSw(v)) continue;
        if (!expanded) {
            stack.push_back({v, true});
            for (int c : p.tree.children[v]) stack.push_back({c, false});
            continue;
        }
        int fv = p.fabricVertex[v];
        bool canKeep = keepable.empty() || keepable.at(fv);
        in.capacity[v] = canKeep ? maxChildren.at(fv) : -1;
        if (canKeep) kMax = std::max(kMax, maxChildren.at(fv));
        in.subtreeSwitches[v] = 1;
        for (int c : p.tree.children[v]) {
            if (isSw(c)) {
                in.swChildren[v].push_back(c);
                in.subtreeSwitches[v] += in.subtreeSwitches[c];
            } else {
                ++in.directNics[v];
                ++nicCount;
            }
        }
        in.postOrder.push_back(v);
    }
    const int switches = in.subtreeSwitches[p.tree.root];

    // Lower bound on kept switches s: they adopt nicCount + s - 1 vertices, at most kMax each.
    int cap = 1;
    if (kMax > 1) cap = std::max(1, (nicCount - 1 + kMax - 2) / (kMax - 1));
    cap = std::min(cap, switches);
    std::vector<std::vector<int>> f(n);
    int best = -1;
    for (;;) {
        best = solve(in, f, cap);
        if (best >= 0 || cap >= switches) break;
        cap = std::min(switches, cap * 2);
    }
    ReducedTree out;
    if (best < 0) return out;

    std::vector<char> kept(n, 0);
    traceback(in, f, p.tree.root, best, cap, kept);
    f.clear();

    // Adopt waiting vertices bottom-up, as many as each kept switch may take.
    std::vector<int> adoptive(n, Tree::kNone);
    std::vector<std::vector<int>> waiting(n);
    for (int v : in.postOrder) {
        std::vector<int> w;
        for (int c : p.tree.children[v]) {
            if (!isSw(c)) {
                w.push_back(c);
            } else {
                w.insert(w.end(), waiting[c].begin(), waiting[c].end());
                std::vector<int>().swap(waiting[c]);
                if (kept[c]) w.push_back(c);
            }
        }
        if (kept[v]) {
            size_t take = std::min<size_t>(w.size(), static_cast<size_t>(in.capacity[v]));
            for (size_t i = 0; i < take; ++i) adoptive[w[i]] = v;
            w.erase(w.begin(), w.begin() + static_cast<long>(take));
        }
        waiting[v] = std::move(w);
    }
    if (!waiting[p.tree.root].empty()) throw std::logic_error("minimumCostTree: root cannot adopt every vertex");

    TypeTwoTree& a = out.tree;
    std::vector<int> id(n, -1);
    // Root first, then kept switches and NICs in physical-tree order.
    id[p.tree.root] = 0;
    a.fabricVertex.push_back(p.fabricVertex[p.tree.root]);
    for (int v = 0; v < n; ++v)
        if (v != p.tree.root && (!isSw(v) || kept[v])) {
            id[v] = static_cast<int>(a.fabricVertex.size());
            a.fabricVertex.push_back(p.fabricVertex[v]);
        }
    const int m = static_cast<int>(a.fabricVertex.size());
    a.tree.root = 0;
    a.tree.parent.assign(m, Tree::kNone);
    a.linksToParent.assign(m, {});
    for (int v = 0; v < n; ++v) {
        if (id[v] <= 0) continue;
        int par = adoptive[v];
        if (par == Tree::kNone) throw std::logic_error("minimumCostTree: vertex left without a parent");
        a.tree.parent[id[v]] = id[par];
        for (int u = v; u != par; u = p.tree.parent[u])
            a.linksToParent[id[v]].insert(a.linksToParent[id[v]].end(), p.linksToParent[u].begin(),
                                          p.linksToParent[u].end());
    }
    a.tree.rebuildChildren();
    out.feasible = true;
    return out;
}

// ---------------------------------------------------------------------------------------------
// Allocation

FabricLoad FabricLoad::withEntries(const Fabric& fabric, int entriesPerSwitch) {
    FabricLoad load;
    load.freeEntries.assign(fabric.vertexCount(), 0);
    for (int s : fabric.switches()) load.freeEntries[s] = entriesPerSwitch;
    load.linkLoad.assign(fabric.linkCount(), 0);
    return load;
}

void FabricLoad::commit(const Fabric& fabric, const TypeTwoTree& tree) {
    for (int s : tree.switchVertices(fabric)) --freeEntries.at(s);
    for (const auto& links : tree.linksToParent)
        for (int l : links) ++linkLoad.at(l);
}

std::vector<int> orderRootsByLoad(const Fabric& fabric, std::vector<int> candidates, const FabricLoad& load) {
    auto linkLoadAt = [&](int v) {
        long long sum = 0;
        for (auto [n, id] : fabric.adjacent(v)) {
            (void)n;
            sum += load.linkLoad.empty() ? 0 : load.linkLoad[id];
        }
        return sum;
    };
    std::vector<std::tuple<int, long long, int>> keyed;
    for (int c : candidates) keyed.emplace_back(-load.freeEntries.at(c), linkLoadAt(c), c);
    std::sort(keyed.begin(), keyed.end());
    for (size_t i = 0; i < keyed.size(); ++i) candidates[i] = std::get<2>(keyed[i]);
    return candidates;
}

const char* typeTwoMethodName(TypeTwoMethod m) {
    return m == TypeTwoMethod::Physical ? "physical" : "minimum-cost";
}

TypeTwoAllocation allocateTypeTwoTree(const Fabric& fabric, const std::vector<int>& nics, TypeTwoMethod method,
                                      const std::vector<int>& maxChildren, FabricLoad& load,
                                      const std::vector<int>* knownCandidates) {
    TypeTwoAllocation result;
    auto candidates = knownCandidates ? *knownCandidates : rootCandidates(fabric, nics);
    if (candidates.empty()) {
        result.reason = "fallback to type I: no switch reaches every NIC";
        return result;
    }
    if (method == TypeTwoMethod::Physical) {
        for (int nic : nics) {
            int only = -1, count = 0;
            for (auto [n, id] : fabric.adjacent(nic)) {
                (void)id;
                if (fabric.isSwitch(n)) {
                    only = n;
                    ++count;
                }
            }
            if (count == 1 && load.freeEntries.at(only) <= 0) {
                result.reason = "fallback to type I: switch " + fabric.name(only) +
                                " (in every physical tree) has no free entry";
                return result;
            }
        }
    }
    candidates = orderRootsByLoad(fabric, candidates, load);
    std::vector<char> keepable;
    if (method == TypeTwoMethod::MinimumCost) {
        keepable.assign(fabric.vertexCount(), 0);
        for (int s : fabric.switches()) keepable[s] = load.freeEntries.at(s) > 0;
    }
    for (int root : candidates) {
        ++result.rootsTried;
        if (load.freeEntries.at(root) <= 0) continue;
        TypeTwoTree physical = physicalTree(fabric, root, nics);
        if (method == TypeTwoMethod::Physical) {
            bool ok = true;
            for (int v = 0; v < physical.tree.size() && ok; ++v) {
                int fv = physical.fabricVertex[v];
                if (fabric.isSwitch(fv))
                    ok = load.freeEntries.at(fv) > 0 &&
                         static_cast<int>(physical.tree.children[v].size()) <= maxChildren.at(fv);
            }
            if (!ok) continue;
            result.tree = std::move(physical);
        } else {
            ReducedTree reduced = minimumCostTree(fabric, physical, maxChildren, keepable);
            if (!reduced.feasible) continue;
            result.tree = std::move(reduced.tree);
        }
        result.status = TypeTwoStatus::Allocated;
        result.root = root;
        load.commit(fabric, result.tree);
        return result;
    }
    result.reason = "fallback to type I: none of " + std::to_string(candidates.size()) +
                    " candidate roots has a " + typeTwoMethodName(method) + " tree with free entries";
    return result;
}

}  // namespace hieragg::aggtree
