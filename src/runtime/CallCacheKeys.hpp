// The keys of a communicator's schedule and plan caches (hieragg_comm::cache, ::plans).
// Every rank must find a plan exactly when the others do: a rank that misses chooses again
// from this call's exact size, another reuses the plan chosen for an earlier call of the
// class, and their schedules no longer match (a hang). So a key is a byte string of its
// fields alone, written one by one: a struct copied into a string would carry its padding,
// whose bytes are whatever the stack held (different per rank and per call).
#pragma once
#include <string>

#include "hieragg/CollCall.hpp"
#include "hieragg/hier/RulesFile.hpp"

namespace hieragg {

// What a cached schedule depends on: kind, root, counts, layouts, op kind, in-place,
// segment size, the algorithm override and the offload path. Buffers and handles are
// bound per call.
std::string scheduleCacheKey(const CollCall& c);

// What a plan depends on besides the communicator: the collective, the size class of its
// message, the op's commutativity, the override, the offload path and the rules file's
// candidate; only what every rank of the call shares (not the root, exact counts or
// in-place, which MPI lets the root alone set), so every rank picks the same plan.
std::string planCacheKey(const CollCall& c, const hier::RuleCandidate* rule);

}  // namespace hieragg
