// Dissemination barrier (Hensgen, Finkel, Manber): in round k every member
// signals member +2^k and waits for member -2^k; after ceil(log2 n) rounds each
// member has transitively heard from all. Zero-byte messages, any n.
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"

namespace hieragg {

struct DisseminationBarrier {
    // Returns the step after which every member has entered; uses channels channel..channel+rounds-1.
    StepId emit(ScheduleBuilder& b, const Group& g, const Deps& after, uint32_t channel) const;
};

}  // namespace hieragg
