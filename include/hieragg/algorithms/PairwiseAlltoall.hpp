// Pairwise alltoall: at step s every member sends to me+s and receives from
// me-s, so each step is a permutation and no member is a hotspot. At most
// `window` steps are in flight (0: all at once), bounding posted requests.
// Blocks are per member and may differ in size and type (alltoallv/w).
#pragma once
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct PairwiseAlltoall {
    int window = 8;
    // sendBlocks[i] goes to member i, recvBlocks[i] comes from member i; the own pair
    // is a local copy. Nothing starts before `after`.
    Emitted emit(ScheduleBuilder& b, const Group& g, const std::vector<Block>& sendBlocks,
                 const std::vector<Block>& recvBlocks, StepId after, uint32_t channel) const;
};

}  // namespace hieragg
