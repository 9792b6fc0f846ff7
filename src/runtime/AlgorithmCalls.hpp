// MPI_T's coll_hieragg_<coll>_algorithm_calls: each registry algorithm that serves a call
// counts it once. A call whose signature is the last call's (LastCall::isLast, set by
// scheduleFor) counts the rows found for that signature without looking them up again.
#pragma once
#include "CommState.hpp"
#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"

namespace hieragg {

// Counts the rows that served `call` (running `sched`) on `c`, and remembers them when the
// call has the last signature.
void countServed(const CollCall& call, const Schedule& sched, hieragg_comm& c);
// Counts the rows that served the last signature (LastCall::servedValid). Inline: the
// compiled fast path counts every call with it.
inline void countLastServed(hieragg_comm& c) {
    for (size_t i = 0; i < c.cache.last.servedCount; ++i) c.counters->served(c.cache.last.served[i]);
}

}  // namespace hieragg
