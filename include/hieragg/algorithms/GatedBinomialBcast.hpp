// Binomial broadcast of one pulse whose receives wait for a gate: reductions
// broadcast their result into the user's buffer, which may still hold this
// rank's input (MPI_IN_PLACE) until its contribution has left.
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Emitted.hpp"

namespace hieragg {

struct GatedBinomialBcast {
    // buf holds the data on the root once `have` is done; receives wait for `gate`.
    Emitted emit(ScheduleBuilder& b, const Group& g, int rootIdx, BufRef buf, TypeRef type, StepId have,
                 const Deps& gate, uint32_t channel) const;
};

}  // namespace hieragg
