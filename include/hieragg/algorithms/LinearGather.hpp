// Linear gather / scatter: the root exchanges one message with every other
// member, each straight between the member's typed buffer and the root's
// typed block. Needs no temporary and no knowledge of other members' counts
// off the root, which is what gatherv/scatterv require (docs/recipes-data-movement.md).
#pragma once
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct LinearGather {
    // Root: rootBlocks[i] receives member i's data (the root's own entry is skipped).
    // Others: send `mine`. Receives are posted in member order from the root's right
    // neighbour on, so every root starts with a different sender.
    Emitted emit(ScheduleBuilder& b, const Group& g, int rootIdx, const std::vector<Block>& rootBlocks,
                 Block mine, StepId after, uint32_t channel) const;
};

struct LinearScatter {
    // Root: sends rootBlocks[i] to member i (skipping itself). Others receive into `mine`.
    Emitted emit(ScheduleBuilder& b, const Group& g, int rootIdx, const std::vector<Block>& rootBlocks,
                 Block mine, StepId after, uint32_t channel) const;
};

}  // namespace hieragg
