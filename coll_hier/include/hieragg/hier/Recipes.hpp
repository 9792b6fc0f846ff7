// Piecewise recipes: one function per collective turns a CollCall into this
// rank's Schedule, composing flat algorithms over the spaces of the
// decomposition (SPEC 3.1) or running one flat algorithm when there is none.
#pragma once
#include <optional>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::recipes {

using RecipeFn = Schedule (*)(const CollCall&);

struct RecipeInfo {
    RecipeFn build = nullptr;
};

// The recipe of a collective kind (build == nullptr: not provided).
const RecipeInfo& recipeFor(hieragg_coll_kind kind);
// Dispatch; throws std::runtime_error if the kind has no recipe.
Schedule buildSchedule(const CollCall& call);

// The schedule the plan's first row builds itself (AlgorithmInfo::build), or nullopt: the
// recipe composes the plan's stages.
std::optional<Schedule> builtByRow(const CollCall& call, const hier::Plan& plan);

// True if the call should run over the decomposition rather than flat.
bool useHierarchy(const CollCall& call);

// True if the schedule of `kind` depends on per-rank vector arguments (counts, displacements,
// neighbor lists) that the other ranks do not know: the v-variants, reduce_scatter and the
// neighborhood collectives. Such schedules are not cached and their temporaries are known
// only to the rank itself.
bool dependsOnPerRankVectors(hieragg_coll_kind kind);

Schedule bcast(const CollCall&);
Schedule barrier(const CollCall&);
Schedule reduce(const CollCall&);
Schedule allreduce(const CollCall&);
Schedule scan(const CollCall&);
Schedule exscan(const CollCall&);
Schedule reduceScatter(const CollCall&);
Schedule reduceScatterBlock(const CollCall&);
Schedule gather(const CollCall&);
Schedule gatherv(const CollCall&);
Schedule scatter(const CollCall&);
Schedule scatterv(const CollCall&);
Schedule allgather(const CollCall&);
Schedule allgatherv(const CollCall&);
Schedule alltoall(const CollCall&);
Schedule alltoallv(const CollCall&);
Schedule alltoallw(const CollCall&);
Schedule neighborAllgather(const CollCall&);
Schedule neighborAllgatherv(const CollCall&);
Schedule neighborAlltoall(const CollCall&);
Schedule neighborAlltoallv(const CollCall&);
Schedule neighborAlltoallw(const CollCall&);

}  // namespace hieragg::recipes
