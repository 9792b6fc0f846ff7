// Bruck allgather for blocks of any sizes and places (allgatherv), without scratch:
// ceil(log2 n) steps; at distance d = 1, 2, 4, ... member i sends the blocks of members
// i .. i + k - 1 (k = min(d, n - d), mod n) it already holds to member i - d and receives
// those of i + d .. i + d + k - 1 from member i + d, every block straight from and into
// its final place. A step's range goes as one message per run of blocks that follow each
// other in memory (one or two when the blocks are laid out in rank order: the range may
// wrap past member n - 1), so log2 n steps instead of the ring's n - 1 and no copies.
#pragma once
#include <functional>
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct BruckAllgatherv {
    // blocks[i]: where member i's block lives on this rank; this rank's own block is valid
    // once `after` is done, the others' regions are free from the start. adjacent(x, y):
    // block y starts where block x ends, with the same type slot, so x and y travel as one
    // message of both counts. Every member must see the same blocks' counts and adjacency.
    Emitted emit(ScheduleBuilder& b, const Group& g, const std::vector<Block>& blocks,
                 const std::function<bool(int, int)>& adjacent, StepId after, uint32_t channel) const;
};

}  // namespace hieragg
