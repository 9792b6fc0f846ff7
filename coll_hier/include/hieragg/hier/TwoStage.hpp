// Hierarchical gatherv, scatterv, alltoallv and alltoallw in two stages
// (docs/recipes-data-movement.md): a schedule's sizes are fixed when it is built,
// and a leader does not know the byte counts of the blocks it must aggregate (only
// the root, or the two ends of a pair, do). So the call runs as two schedules:
//  1. the size stage: every member of an aggregating group hands its leader the
//     byte counts it knows (gatherv/scatterv: its own block; alltoallv/w: its row of
//     outgoing and its row of incoming blocks); only messages inside groups;
//  2. the data stage, built from what stage 1 delivered: blocks of at most
//     leaderBlockLimit() bytes travel through the leaders, one message per pair of
//     groups; larger blocks go straight between their owners (both ends know the
//     size, so they agree on the route), and zero-byte blocks send nothing.
// The runtime chains the two (src/runtime/TwoStageCall.*); the simulator tests run
// them one after the other.
#pragma once
#include <cstdint>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"

namespace hieragg::hier {
class Hierarchy;
}

namespace hieragg::recipes {

// The level whose groups aggregate: the outermost with more than one group (-1: none).
int aggregationLevel(const CollCall& c);
// Whether `c` (a gatherv, scatterv, alltoallv or alltoallw) runs its `hierarchical`
// row: forced (and its needs hold), or auto where the model says routing blocks through
// the leaders pays for some block size. Reads only what every rank knows.
bool twoStage(const CollCall& c);
// Blocks of at most this many bytes go through the leaders: the model's break-even
// (a network start-up saved against the extra hops and copies of the block's bytes),
// capped so every rank's temporaries stay within c.maxTempBytes.
size_t leaderBlockLimit(const CollCall& c);
// The root's side of a gatherv/scatterv data stage, per group of `level` in group order:
// the ranks whose blocks move straight between them and the root (the root's own group,
// groups of one, blocks above `limit`; never the root or a zero-byte block), and the
// rest, packed side by side in member order through the group's leader.
struct RootGroupRoute {
    int leader = -1;
    std::vector<int> direct, through;
    size_t bytes = 0;  // of `through`
};
struct RootRoutes {
    std::vector<RootGroupRoute> groups;
    size_t total = 0;  // every group's `bytes`: one temporary at the root holds them all
};
RootRoutes rootRoutes(const hier::Hierarchy& h, int level, int root, const std::vector<size_t>& bytes,
                      size_t limit);
// The uint64 byte counts this rank sends in the size stage, and how many it learns.
std::vector<uint64_t> sizeStageInput(const CollCall& c);
size_t sizeStageLearned(const CollCall& c);
// Stage 1's schedule (c.varStage == 1): sbuf = sizeStageInput, rbuf = what it learns.
Schedule sizeStage(const CollCall& c);

// The data stages (c.varStage == 2, c.learnedBytes from stage 1).
Schedule gathervThroughLeaders(const CollCall& c);
Schedule scattervThroughLeaders(const CollCall& c);
Schedule alltoallvThroughLeaders(const CollCall& c);
Schedule alltoallwThroughLeaders(const CollCall& c);

}  // namespace hieragg::recipes
