// One pulse of an inclusive or exclusive prefix reduction along the rank chain:
// member i waits for the prefix of [0, i-1] from i-1, combines it with its own
// contribution (received op mine: rank order, so non-commutative ops are fine) and
// passes [0, i] to i+1. n-1 dependent hops, but every member receives, combines and
// sends the vector once (recursive doubling: ceil(log2 n) times), and consecutive
// pulses stream down the chain. Open MPI's basic scan does the same. With a commutative
// op and separate buffers, an inclusive member receives the prefix straight into out and
// folds its own input into it (mine op received: equal under a commutative op), without
// the copy of its input and the scratch buffer.
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/ScanPulse.hpp"

namespace hieragg {

struct LinearScan {
    bool exclusive = false;

    struct Pulse : ScanPulse {
        BufRef scratch;            // one pulse-sized buffer (when usesScratch)
        bool commutative = false;  // the op's operands may be swapped
    };
    // Whether member `me` of n needs Pulse::scratch (inPlace: input aliases out).
    bool usesScratch(int me, int n, bool inPlace, bool commutative) const;
    // Returns the step after which all of this member's steps are done.
    StepId emit(ScheduleBuilder& b, const Group& g, const Pulse& p) const;
};

}  // namespace hieragg
