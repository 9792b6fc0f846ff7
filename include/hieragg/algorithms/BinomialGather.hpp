// Gather over a binomial tree with contributions of different sizes (a leader
// contributes its whole subspace). Members are numbered virtually from the
// root; each inner node holds its subtree's contributions contiguously, in
// virtual order, as packed bytes, and sends them to its parent in one message.
#pragma once
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct BinomialGather {
    // memberBytes[i]: packed bytes member i contributes. `mine` is this rank's
    // contribution; if mineInWork it already sits at work[0] (or, on the root, its
    // slot may stay unused), else an inner node first copies it there and a leaf
    // sends it straight from `mine`. On the root, `work` ends up holding every
    // contribution in virtual order (rootIdx, rootIdx+1, ... mod n).
    Emitted emit(ScheduleBuilder& b, const Group& g, int rootIdx, const std::vector<size_t>& memberBytes,
                 Block mine, bool mineInWork, BufRef work, StepId after, uint32_t channel) const;
    // Bytes this rank's work buffer needs (0: a leaf that sends from `mine`).
    static size_t workBytes(const Group& g, int rootIdx, const std::vector<size_t>& memberBytes);
};

// Binomial tree over virtual ranks 0..n-1 rooted at 0: the parent of v clears
// its lowest set bit; v's subtree is [v, v + lowbit(v)) clipped to n.
namespace binomial {
int parent(int v);
int subtreeEnd(int v, int n);
std::vector<int> children(int v, int n);  // largest subtree first
}  // namespace binomial

}  // namespace hieragg
