// k-nomial aggregation tree (type I, SPEC algorithm 1): DFS numbering in base k.
// Write the virtual rank v = (r − root + P) mod P in base k. If its lowest i digits
// are 0, its parent clears its lowest non-zero digit and its children set one of
// those lowest i digits to 1..k−1 (so at most i·(k−1) children; the root has
// (k−1)·⌈log_k P⌉ when P is a power of k).
#pragma once
#include <cstdint>
#include <vector>

#include "hieragg/aggtree/Tree.hpp"

namespace hieragg::aggtree {

// Parent of virtual rank v > 0: v with its lowest non-zero base-k digit cleared.
std::uint64_t knomialParentPosition(std::uint64_t v, int k);

// Children of virtual rank v among virtual ranks < P, in increasing order.
std::vector<std::uint64_t> knomialChildPositions(std::uint64_t v, int k, std::uint64_t P);

// Throws std::invalid_argument for P < 1, k < 2 or root outside [0, P).
Tree buildKnomialTree(int P, int k, int root = 0);

}  // namespace hieragg::aggtree
