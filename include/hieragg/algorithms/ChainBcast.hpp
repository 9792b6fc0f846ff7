// Pipelined chain broadcast (SPEC 3.5, "one-directional ring"): the root cuts
// the message into segments and pushes them right; every member receives from
// its left and forwards to its right. Best for long messages inside a node.
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct ChainBcast {
    size_t segmentCount = 0;  // elements per segment, 0 = whole message
    Emitted emit(ScheduleBuilder& b, const Group& g, int rootIdx, BufRef buf, TypeRef type,
                 ptrdiff_t extent, StepId after, uint32_t channel) const;
    // Best segment size from t_chain = (m/c + n - 2)(t_s + c/bw): c = sqrt(m t_s bw / (n - 2)).
    static double optimalSegmentBytes(double messageBytes, int members, double startupUs,
                                      double bytesPerUs);
};

}  // namespace hieragg
