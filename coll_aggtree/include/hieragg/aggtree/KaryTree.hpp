// k-ary aggregation tree (type I): BFS numbering relative to the root.
// Vertices are process ranks 0..P-1. With virtual rank v = (r − root + P) mod P,
// the parent is (v − 1)/k and the children are v·k + i, i = 1..k.
#pragma once
#include "hieragg/aggtree/Tree.hpp"

namespace hieragg::aggtree {

// Throws std::invalid_argument for P < 1, k < 1 or root outside [0, P).
Tree buildKaryTree(int P, int k, int root = 0);

}  // namespace hieragg::aggtree
