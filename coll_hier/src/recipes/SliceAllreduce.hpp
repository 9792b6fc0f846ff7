// Allreduce by the bandwidth-optimal compositions (registry rows ring, rabenseifner,
// recursive_doubling, multileader_ring, multileader_rabenseifner; commutative ops only):
// every element is reduced once, by the member that owns its slice, and the results
// travel back by allgather, instead of reduce + bcast through one root.
#pragma once
#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::recipes {

// The compositions, one per row (the rows' builders pass theirs).
enum class SliceKind { Ring, Rabenseifner, RecursiveDoubling, MultiLeaderRing, MultiLeaderRabenseifner };

Schedule sliceAllreduce(const CollCall& c, SliceKind kind);

}  // namespace hieragg::recipes
