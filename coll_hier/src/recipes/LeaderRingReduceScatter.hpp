// reduce_scatter(_block) through the outermost leaders without a root (registry row
// `hierarchical`, commutative ops): pulse p carries piece p of every rank's block,
// laid out group by group (members ascending) in a packed pulse vector, so each
// outermost group's pieces form one contiguous "node block". Per pulse:
//   1. every rank packs its contribution (local copies) and the pulse vector is
//      reduced toward each outermost group's leader, level by level (binomial trees);
//   2. the leaders ring-reduce-scatter the node blocks (G - 1 steps, one node block
//      per leader and step), so each leader ends with its group's totals;
//   3. each leader sends every member its piece, straight into the member's rbuf.
// Any split, round-robin placement, zero counts and MPI_IN_PLACE (packing reads the
// input before any output of a later-or-equal pulse overwrites it). Temporary
// memory: per window slot one pulse vector (pack) + the tree's children + one node
// block (leaders), with pieces of segment / (largest group) elements.
#pragma once
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"

namespace hieragg::recipes {

// counts[j], displs[j]: rank j's block of the (intracommunicator) input vector.
Schedule leaderRingReduceScatter(const CollCall& c, const std::vector<size_t>& counts,
                                 const std::vector<size_t>& displs);

}  // namespace hieragg::recipes
