// Recursive-doubling allgather over a power-of-two group whose blocks are equal and
// laid out in member order (allgather's rbuf): at distance d = 1, 2, 4, ... member i
// swaps its aligned range of d blocks with member i ^ d, one message each way, so
// log2 n messages per member instead of the ring's n - 1 (short blocks).
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct RecursiveDoublingAllgather {
    // Block i: `count` elements of `elemType` at base + i * stride (bytes); this member's
    // own block is valid once `after` is done, the others' regions are free from the start.
    Emitted emit(ScheduleBuilder& b, const Group& g, BufRef base, uint32_t elemType, size_t count, ptrdiff_t stride,
                 StepId after, uint32_t channel) const;
};

}  // namespace hieragg
