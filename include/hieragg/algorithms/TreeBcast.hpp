// Broadcast down any MemberTree: k-nomial (k = 2: binomial), k-ary, the chain
// (SPEC 3.5's pipelined one-directional ring is the 1-ary tree) or the
// hierarchical minimum-height tree. Optionally segmented so long messages
// pipeline down the tree: the segments are one fragment template (Schedule.hpp), so
// the schedule holds one segment's steps whatever the message, and a segmented
// broadcast cannot be emitted inside another template; receives may wait for a gate (reductions broadcast
// into a buffer that can still hold this rank's input, MPI_IN_PLACE).
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Emitted.hpp"
#include "hieragg/algorithms/MemberTree.hpp"

namespace hieragg {

struct TreeBcast {
    const MemberTree& tree;   // over the members of g
    // At most this many segments: beyond it the per-message cost (rendezvous, requests)
    // outweighs the pipeline's gain, already within (n-2)/kMaxSegments of ideal.
    // Segments live in the caller's buffer, so growing them costs no temporary memory.
    static constexpr size_t kMaxSegments = 128;
    size_t segmentCount = 0;  // elements per segment (grown to respect kMaxSegments), 0 = whole message
    // `buf` holds `type.count` elements, `extent` bytes apart; valid on the root once
    // `after` is done. Receives wait for `gate`.
    Emitted emit(ScheduleBuilder& b, const Group& g, BufRef buf, TypeRef type, ptrdiff_t extent,
                 StepId after, const Deps& gate, uint32_t channel) const;
    // Best chain segment of SPEC 3.5: t = (m/c + n - 2)(t_s + c/bw), c = sqrt(m t_s bw / (n - 2)).
    static double optimalChainSegmentBytes(double messageBytes, int members, double startupUs,
                                           double bytesPerUs);
};

}  // namespace hieragg
