// Broadcast over a k-nomial tree (k = 2: binomial), optionally segmented so
// that large messages pipeline down the tree.
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct KnomialBcast {
    int radix = 2;
    size_t segmentCount = 0;  // elements per segment, 0 = whole message at once
    // `buf` holds `type.count` elements; valid on the root once `after` is done.
    // Elements are `extent` bytes apart.
    Emitted emit(ScheduleBuilder& b, const Group& g, int rootIdx, BufRef buf, TypeRef type,
                 ptrdiff_t extent, StepId after, uint32_t channel) const;
};

}  // namespace hieragg
