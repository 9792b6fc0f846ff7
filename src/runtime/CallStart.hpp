// Starting a call (docs/architecture.md, "One call's path", steps 1-2, and "More calls in
// flight than the window"): under the communicator's lock, a blocking repeat of the last
// call runs compiled (runRepeat); a call whose decomposition exists and whose tags are clear
// launches (CallLaunch.hpp), counted in the tag window unless it is a blocking call with
// nothing in flight; every other call waits in the queue (DecompositionStage::pending) and
// launches, in start order, when the decomposition exists and the window lets it.
#pragma once
#include <cstdint>

#include "CommState.hpp"
#include "OwnedCallArgs.hpp"

namespace hieragg {

// Starts the call `args` on `c` (persistentId >= 0: a start of that persistent request);
// `done(ctx, status)` runs when it completes. Never waits for another rank. Returns an
// error code without calling `done` when nothing was started or queued.
int startCall(hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId, hieragg_complete_fn done,
              void* ctx, ArgsLifetime lifetime);
// A blocking call: the compiled fast path if it repeats the last call, else startCall, then
// the wait. Returns the call's status.
int runBlocking(hieragg_comm& c, const hieragg_coll_args& args);
// runBlocking with a barrier's arguments (kBarrierArgs): a repeat is known without comparing
// them (LastCall::repeatsCompilableBarrier).
int runBarrier(hieragg_comm& c);

}  // namespace hieragg
