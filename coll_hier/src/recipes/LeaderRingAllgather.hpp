// Allgather through the outermost leaders without staging (registry row leader_ring):
// every rank sends its block to its group's leader, straight into the leader's rbuf;
// the leaders pass whole groups' blocks around a ring (step s: the blocks of group
// g - s), and as each group's blocks arrive a leader broadcasts them into its group
// down a binomial tree, straight into the members' rbuf, while the ring goes on.
// Blocks travel as maximal runs of consecutive ranks (one run per group when groups
// are contiguous rank ranges). Temporary memory: none.
// Allgatherv runs the same steps with its blocks at their displacements: a run is
// then consecutive ranks whose blocks are also adjacent in rbuf.
#pragma once
#include <functional>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/algorithms/Block.hpp"

namespace hieragg::recipes {

// blockOf(r): where rank r's block lives in every rbuf (kRecvType); mine: this rank's input
// (its send buffer, or blockOf(rank) in place); adjacent(x, y): y's block follows x's in rbuf.
Schedule leaderRingAllgather(const CollCall& c, const std::function<Block(int)>& blockOf, const Block& mine,
                             const std::function<bool(int, int)>& adjacent);
// True when every outermost group is one run (contiguous ranks, adjacent blocks).
bool oneRunPerGroup(const CollCall& c, const std::function<bool(int, int)>& adjacent);
// True when the runs of the outermost groups carry at least one segment each on average:
// then the leaders' ring sends segment-sized messages whatever the placement.
bool segmentLongRuns(const CollCall& c, const std::function<Block(int)>& blockOf,
                     const std::function<bool(int, int)>& adjacent);

}  // namespace hieragg::recipes
