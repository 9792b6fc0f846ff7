// One pulse of an inclusive or exclusive prefix reduction by recursive doubling
// (Hillis-Steele): in step k member i sends its partial product of
// [i-2^k+1, i] to i+2^k and combines the one of [i-2^{k+1}+1, i-2^k] from
// i-2^k on its left: received op partial, so the product stays in index
// order (non-commutative ops) and the combine order is fixed. ceil(log2 n) steps.
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/ScanPulse.hpp"

namespace hieragg {

struct RecursiveDoublingScan {
    bool exclusive = false;

    struct Pulse : ScanPulse {
        BufRef scratch[2];  // scratchCount() pulse-sized buffers
    };
    int scratchCount() const { return exclusive ? 2 : 1; }
    // Returns the step after which all of this member's steps are done.
    StepId emit(ScheduleBuilder& b, const Group& g, const Pulse& p) const;
};

}  // namespace hieragg
