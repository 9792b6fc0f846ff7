// Launch (docs/architecture.md, "One call's path", step 3 and 8): a call whose
// decomposition exists and whose tags are clear becomes a Task started on the transport
// (the PML's, or the offload's for a fabric stage), a strong reduction's chain of calls on
// accumulators (ReproducibleCall) or a two-stage v-collective (TwoStageCall).
#pragma once
#include <cstdint>

#include "CommState.hpp"
#include "OwnedCallArgs.hpp"

namespace hieragg {

// Starts the call `args` (the decomposition exists). Returns an error code without
// calling `done` when nothing was started. A call of one Task reads its arrays only
// here (its schedule holds what it needs); a chain that starts links later holds them
// as `lifetime` requires (OwnedCallArgs).
int launch(hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId, hieragg_complete_fn done,
           void* ctx, ArgsLifetime lifetime);

// The per-pair call numbers `args` may take on any one pair, at most (CallWindow.hpp):
// as launch() decides, a strong reduction's chain its links, a two-stage call two.
uint64_t callNumbersBound(const hieragg_comm& c, const hieragg_coll_args& args);

}  // namespace hieragg
