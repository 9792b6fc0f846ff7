// Allreduce over the butterfly of a power-of-two core, in place in the vector this
// rank accumulates into:
// - RecursiveDoubling (small vectors): log2 p exchanges of the whole vector.
// - Rabenseifner: reduce-scatter by recursive halving (log2 p exchanges of 1/2, 1/4, ...
//   of the vector), then allgather by recursive doubling: 2 (p - 1)/p of the vector per
//   rank in 2 log2 p messages.
// A size that is not a power of two folds first: of the first 2r members (r = n - p2),
// each odd one hands its vector to the even one below it and gets the result back at
// the end. Operands are combined in an order fixed by the member numbering, so results
// are bitwise reproducible (commutative operations only: partners combine in opposite
// orders, which IEEE addition and multiplication, like every predefined MPI operation,
// give the same bits).
#pragma once
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Emitted.hpp"
#include "hieragg/algorithms/VectorBlocks.hpp"

namespace hieragg {

// The power-of-two core a butterfly folds n members to: the largest power of two <= n
// (1 for n <= 1). Recursive halving reduce_scatter folds the same way.
inline int butterflyCore(int n) {
    int p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

struct ButterflyAllreduce {
    enum class Kind { RecursiveDoubling, Rabenseifner };
    Kind kind = Kind::Rabenseifner;

    // The vector: `count` elements of `elemType` at `acc` (valid once `after` is done), `extent`
    // bytes apart. scratch: scratchElements(n, count) elements. Channels: `channel` carries the
    // fold, channel + 1 the exchanges and channel + 2 the doubling/unfold (each pair of members
    // talks at most once per channel and direction).
    Emitted emit(ScheduleBuilder& b, const Group& g, BufRef acc, uint32_t elemType, size_t count, ptrdiff_t extent,
                 BufRef scratch, StepId after, uint32_t channel) const;
    // Elements of scratch the emitter needs on a group of n members.
    size_t scratchElements(int n, size_t count) const;
};

}  // namespace hieragg
