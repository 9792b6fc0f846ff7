// Allreduce by the bandwidth-optimal compositions (registry rows ring, rabenseifner,
// recursive_doubling, multileader_ring, multileader_rabenseifner; commutative ops only):
// every element is reduced once, by the member that owns its slice, and the results
// travel back by allgather, instead of reduce + bcast through one root.
#pragma once
#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::recipes {

// True if `plan` runs one of these compositions.
bool slicesAllreduce(const hier::Plan& plan);
Schedule sliceAllreduce(const CollCall& c, const hier::Plan& plan);

}  // namespace hieragg::recipes
