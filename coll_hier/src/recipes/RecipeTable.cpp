// Which recipe serves each collective (the algorithms each recipe may run are
// the registry's rows: the units of coll_hier/src/algorithms/).
#include <stdexcept>
#include <string>

#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

namespace {
RecipeInfo table[HIERAGG_COLL_KIND_COUNT] = {};

struct TableInit {
    TableInit() {
        table[HIERAGG_BCAST] = {&bcast};
        table[HIERAGG_GATHER] = {&gather};
        table[HIERAGG_SCATTER] = {&scatter};
        table[HIERAGG_ALLGATHER] = {&allgather};
        table[HIERAGG_ALLGATHERV] = {&allgatherv};
        table[HIERAGG_GATHERV] = {&gatherv};
        table[HIERAGG_SCATTERV] = {&scatterv};
        table[HIERAGG_ALLTOALL] = {&alltoall};
        table[HIERAGG_ALLTOALLV] = {&alltoallv};
        table[HIERAGG_ALLTOALLW] = {&alltoallw};
        table[HIERAGG_NEIGHBOR_ALLGATHER] = {&neighborAllgather};
        table[HIERAGG_NEIGHBOR_ALLGATHERV] = {&neighborAllgatherv};
        table[HIERAGG_NEIGHBOR_ALLTOALL] = {&neighborAlltoall};
        table[HIERAGG_NEIGHBOR_ALLTOALLV] = {&neighborAlltoallv};
        table[HIERAGG_NEIGHBOR_ALLTOALLW] = {&neighborAlltoallw};
        table[HIERAGG_BARRIER] = {&barrier};
        table[HIERAGG_REDUCE] = {&reduce};
        table[HIERAGG_ALLREDUCE] = {&allreduce};
        table[HIERAGG_SCAN] = {&scan};
        table[HIERAGG_EXSCAN] = {&exscan};
        table[HIERAGG_REDUCE_SCATTER] = {&reduceScatter};
        table[HIERAGG_REDUCE_SCATTER_BLOCK] = {&reduceScatterBlock};
    }
} tableInit;
}  // namespace

const RecipeInfo& recipeFor(hieragg_coll_kind kind) { return table[kind]; }

std::optional<Schedule> builtByRow(const CollCall& call, const hier::Plan& plan) {
    if (plan.stages.empty() || !plan.stages[0].algo || !plan.stages[0].algo->build) return std::nullopt;
    return plan.stages[0].algo->build(call, plan);
}

Schedule buildSchedule(const CollCall& call) {
    const RecipeInfo& r = recipeFor(call.args.kind);
    if (!r.build) throw std::runtime_error("no recipe for collective " + std::to_string(call.args.kind));
    return r.build(call);
}

}  // namespace hieragg::recipes
