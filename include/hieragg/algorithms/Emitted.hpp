// What a flat algorithm hands back to the recipe that composes it.
#pragma once
#include "hieragg/Schedule.hpp"

namespace hieragg {

struct Emitted {
    StepId ready = kNoStep;  // this rank's output is in place (later stages may read it)
    StepId done = kNoStep;   // every step of this stage on this rank is finished (buffers reusable)
};

}  // namespace hieragg
