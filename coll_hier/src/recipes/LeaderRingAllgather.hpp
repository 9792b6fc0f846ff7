// Allgather through the outermost leaders without staging (registry row leader_ring):
// every rank sends its block to its group's leader, straight into the leader's rbuf;
// the leaders pass whole groups' blocks around a ring (step s: the blocks of group
// g - s), and as each group's blocks arrive a leader broadcasts them into its group
// down a binomial tree, straight into the members' rbuf, while the ring goes on.
// Blocks travel as maximal runs of consecutive ranks (one run per group when groups
// are contiguous rank ranges). Temporary memory: none.
#pragma once
#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"

namespace hieragg::recipes {

Schedule leaderRingAllgather(const CollCall& c);

}  // namespace hieragg::recipes
