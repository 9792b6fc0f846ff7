// Bruck allgather for any group size: ceil(log2 n) steps; at distance d = 1, 2, 4, ...
// member i sends the first min(d, n - d) blocks it holds to member i - d and receives
// as many from i + d. Blocks collect in a rotated scratch (slot j = member i + j),
// rotated into place by two copies at the end. log2 n messages per member instead of
// the ring's n - 1 (short blocks, sizes that are not powers of two).
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct BruckAllgather {
    // Output block i: `count` elements of `elemType` at out + i * stride; `own` is this member's
    // block (valid once `after` is done, any slot), `scratch` holds n blocks of `stride` bytes.
    Emitted emit(ScheduleBuilder& b, const Group& g, BufRef own, TypeRef ownType, BufRef out, uint32_t elemType,
                 size_t count, ptrdiff_t stride, BufRef scratch, StepId after, uint32_t channel) const;
};

}  // namespace hieragg
