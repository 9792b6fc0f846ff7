// Call preparation (docs/architecture.md, "One call's path", step 4-7): a call's arguments
// on a communicator become a CollCall (sizes, types, the decomposition, cost parameters,
// limits, the forced algorithm or the rules file's choice) and its schedule, from the
// last-call shortcut, the plan and schedule caches (CallCache.hpp) or built anew.
#pragma once
#include <memory>

#include "CommState.hpp"
#include "OwnedCallArgs.hpp"
#include "ReproducibleCall.hpp"
#include "Runtime.hpp"
#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/hier/RulesFile.hpp"

namespace hieragg {

// A two-stage call's stage (coll_hier TwoStage.hpp): 0 = a call of one stage.
struct VarStage {
    int stage = 0;                     // CollCall::varStage
    const uint64_t* learned = nullptr; // stage 2: what stage 1 delivered
};

// Fills `call` from `args` on `c`: layouts, settings, the forced algorithm (refused when
// its needs fail) and the rules file's choice; returns that rule (null: none).
const hier::RuleCandidate* prepareCall(hieragg_comm& c, const hieragg_coll_args& args, CollCall& call,
                                       bool offloadAllowed);

// Builds (or finds in the cache) the schedule of `args` on `c`; fills `call`. Returns an
// error code (and no schedule) when none can run. Throws what building throws.
int scheduleFor(hieragg_comm& c, const hieragg_coll_args& args, CollCall& call,
                std::shared_ptr<const Schedule>& sched, bool offloadAllowed = true, VarStage stage = {});

// The lengths of a call's arrays on `c` (OwnedCallArgs).
CallSide sideOf(const hieragg_comm& c);

// coll_hieragg_reproducible=strong: MPI_SUM of doubles/floats runs on accumulators
// (ReproducibleCall converts at entry and rounds once at completion).
inline bool strongReproducible(const Runtime& rt, const hieragg_comm& c, const hieragg_coll_args& a) {
    return rt.config().reproducible == HIERAGG_REPRODUCIBLE_STRONG && ReproducibleCall::applies(a, c.inter);
}

}  // namespace hieragg
