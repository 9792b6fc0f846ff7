// Ring allgather: n-1 steps; at step s every member passes the block it got at
// step s-1 to its right neighbour. Bandwidth-optimal and works for blocks of
// any (different) sizes and layouts, hence also allgatherv and the leader
// stage of the hierarchical allgather.
#pragma once
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct RingAllgather {
    // blocks[i]: where member i's block lives on this rank. This rank's own block
    // is valid once `after` is done; the others' regions must be free from the start, or
    // once `regionsFree` is done.
    Emitted emit(ScheduleBuilder& b, const Group& g, const std::vector<Block>& blocks, StepId after,
                 uint32_t channel, const Deps& regionsFree = {}) const;
};

}  // namespace hieragg
