// The one tree module of the schedule layer: every tree-shaped emitter (TreeBcast,
// OrderedTreeReduce, PackedSubtrees' gather and scatter, the barrier's fan-in and release)
// runs over a MemberTree, a coll_aggtree Tree whose vertices are the indices of a
// Group's members. TreeShape names the shapes of coll_aggtree (k-nomial of any k,
// k-ary, the chain = 1-ary tree); the hierarchical minimum-height k-nomial tree
// over a decomposition comes in as a ready aggtree::Tree (MemberTree::of).
#pragma once
#include <string>
#include <vector>

#include "hieragg/aggtree/Tree.hpp"

namespace hieragg {

struct MemberTree {
    int root = 0;
    std::vector<int> parent;                 // -1 for the root
    std::vector<std::vector<int>> children;  // ascending virtual order (v = (i - root + n) mod n)
    // In-order: every subtree is the virtual range [v, subtreeEnd[v]) and a vertex's children
    // come after it. Then a node's product own op child op child... (ascending) is the
    // rank-order product of its range, and gathered data stays contiguous in virtual order.
    bool inOrder = false;
    std::vector<int> subtreeEnd;             // [virtual v], valid when inOrder

    int size() const { return static_cast<int>(parent.size()); }
    int virtualOf(int idx) const { return (idx - root + size()) % size(); }
    int indexOf(int v) const { return (v + root) % size(); }
    // Vertices are member indices; t.root is the index of the root.
    static MemberTree of(const aggtree::Tree& t);
};

struct TreeShape {
    enum class Kind { Knomial, Kary, Chain };
    Kind kind = Kind::Knomial;
    int k = 2;  // radix (k-nomial, >= 2) or arity (k-ary, >= 1); unused for the chain

    static TreeShape knomial(int k) { return {Kind::Knomial, k < 2 ? 2 : k}; }
    static TreeShape kary(int k) { return {Kind::Kary, k < 1 ? 1 : k}; }
    static TreeShape chain() { return {Kind::Chain, 1}; }
    // k-nomial and chain numberings are in-order (DFS); k-ary (BFS) is not unless k = 1.
    bool inOrder() const { return kind != Kind::Kary || k == 1; }
    MemberTree build(int members, int rootIdx) const;
    std::string name() const;  // "knomial", "kary", "chain"
};

}  // namespace hieragg
