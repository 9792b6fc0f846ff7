// Pipelined chain broadcast (SPEC 3.5, "one-directional ring"): the root cuts
// the message into segments and pushes them right; every member receives from
// its left and forwards to its right. Best for long messages inside a node.
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct ChainBcast {
    // At most this many segments: beyond it the per-message cost (rendezvous, requests)
    // outweighs the pipeline's gain, which is already within (n-2)/kMaxSegments of ideal.
    // Segments live in the caller's buffer, so growing them costs no temporary memory.
    static constexpr size_t kMaxSegments = 128;
    size_t segmentCount = 0;  // elements per segment (grown to respect kMaxSegments), 0 = whole message
    Emitted emit(ScheduleBuilder& b, const Group& g, int rootIdx, BufRef buf, TypeRef type,
                 ptrdiff_t extent, StepId after, uint32_t channel) const;
    // Best segment size from t_chain = (m/c + n - 2)(t_s + c/bw): c = sqrt(m t_s bw / (n - 2)).
    static double optimalSegmentBytes(double messageBytes, int members, double startupUs,
                                      double bytesPerUs);
};

}  // namespace hieragg
