// Ring reduce-scatter (the first half of the ring allreduce): n - 1 steps; at step
// s member i sends block (i - s - 1) mod n to its right neighbour and reduces the
// block (i - s - 2) mod n it gets from its left one, so after n - 1 steps member i
// holds block i combined over every member. Each step moves 1/n of the vector, so
// the whole reduce-scatter moves (n - 1)/n of it per rank: bandwidth-optimal.
// Blocks are combined in a fixed order along the ring (commutative operations
// only: member i's block is combined starting at member i + 1), so results are
// bitwise reproducible. A receive is posted only after the previous step's
// reduction, so one channel carries every step in order and one scratch block
// suffices.
#pragma once
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct RingReduceScatter {
    // blocks[i]: member i's block inside the vector this rank accumulates into (its own
    // contribution, valid once `after` is done). scratch: room for the largest block, typed
    // like the blocks. On `ready`, blocks[g.me] holds the reduction over every member.
    Emitted emit(ScheduleBuilder& b, const Group& g, const std::vector<Block>& blocks, BufRef scratch,
                 StepId after, uint32_t channel) const;
    // The same ring with a read-only input (reduce_scatter: sbuf stays untouched): partial
    // blocks travel through two scratch blocks (scratch[0], scratch[1], each as large as the
    // largest block) and member me's result lands in `out` (written once outFree is done).
    Emitted emitToOutput(ScheduleBuilder& b, const Group& g, const std::vector<Block>& input, const Block& out,
                         const BufRef scratch[2], StepId after, const Deps& outFree, uint32_t channel) const;
};

}  // namespace hieragg
