// An aggregation tree over processes (type I) or over switches and processes (type II).
// Shared vocabulary of coll_aggtree: builders produce it, the traffic model and the
// planner consume it. Vertex ids are dense 0..size()-1; what a vertex stands for
// (a process rank, a switch) is the builder's documented convention.
#pragma once
#include <cstdint>
#include <vector>

namespace hieragg::aggtree {

struct Tree {
    static constexpr int kNone = -1;
    int root = kNone;
    std::vector<int> parent;                 // parent[v], kNone for the root
    std::vector<std::vector<int>> children;  // children[v], in the order a reduction combines them

    int size() const { return static_cast<int>(parent.size()); }

    // Rebuild children[] from parent[] (children sorted by vertex id).
    void rebuildChildren();
    // Number of edges on the longest root-to-leaf path.
    int height() const;
    // Largest number of children of any vertex.
    int maxDegree() const;
    // Depth of every vertex (root = 0).
    std::vector<int> depths() const;
    // True if parent[] forms one tree spanning every vertex, rooted at root.
    bool isValid() const;
};

}  // namespace hieragg::aggtree
