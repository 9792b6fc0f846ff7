// The per-rank vectors a call's schedule depends on, by value: counts, displacements,
// neighbor lists, per-peer type layouts (alltoallw) and, for a two-stage call's data
// stage, the sizes its size stage delivered. Which vectors a collective carries, how long
// they are and where MPI makes them significant is its row of the collective facts
// (CollectiveFacts.hpp); only significant vectors are read (an insignificant pointer may be
// anything). The schedule key holds their hash and byte count (CallCacheKeys.hpp), so a
// key stays a few hundred bytes at any communicator size; the cache keeps the vectors
// themselves with each schedule and compares them on a hit, so equal hashes of different
// vectors never serve a stale schedule.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hieragg/CollCall.hpp"

namespace hieragg {

// The byte strings below are: a header recording which vectors are present and how long
// each is (two calls whose vectors concatenate to the same bytes never compare equal),
// then each significant vector in a fixed order.
struct VectorDigest {
    uint64_t hash = 0;
    uint64_t bytes = 0;  // 0: the call has no vectors
};
VectorDigest digestVectors(const CollCall& c);
// The vectors' bytes, as keepVectors stores them, compared with `kept`.
bool sameVectors(const CollCall& c, const std::vector<char>& kept);
void keepVectors(const CollCall& c, std::vector<char>& out);

}  // namespace hieragg
