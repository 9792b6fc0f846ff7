// The algorithm set as data: which recipe serves each collective and which
// algorithm names its override parameter accepts.
#include <stdexcept>
#include <string>

#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

namespace {
RecipeInfo table[HIERAGG_COLL_KIND_COUNT] = {};

struct TableInit {
    TableInit() {
        table[HIERAGG_BCAST] = {&bcast, "auto,knomial,chain,flat"};
        table[HIERAGG_GATHER] = {&gather, "auto,binomial,flat"};
        table[HIERAGG_SCATTER] = {&scatter, "auto,binomial,flat"};
        table[HIERAGG_ALLGATHER] = {&allgather, "auto,ring,hierarchical"};
        table[HIERAGG_ALLGATHERV] = {&allgatherv, "auto,ring,hierarchical"};
        table[HIERAGG_GATHERV] = {&gatherv, "auto,linear"};
        table[HIERAGG_SCATTERV] = {&scatterv, "auto,linear"};
        table[HIERAGG_ALLTOALL] = {&alltoall, "auto,pairwise,hierarchical"};
        table[HIERAGG_ALLTOALLV] = {&alltoallv, "auto,pairwise"};
        table[HIERAGG_ALLTOALLW] = {&alltoallw, "auto,pairwise"};
        table[HIERAGG_NEIGHBOR_ALLGATHER] = {&neighborAllgather, "auto,linear"};
        table[HIERAGG_NEIGHBOR_ALLGATHERV] = {&neighborAllgatherv, "auto,linear"};
        table[HIERAGG_NEIGHBOR_ALLTOALL] = {&neighborAlltoall, "auto,linear"};
        table[HIERAGG_NEIGHBOR_ALLTOALLV] = {&neighborAlltoallv, "auto,linear"};
        table[HIERAGG_NEIGHBOR_ALLTOALLW] = {&neighborAlltoallw, "auto,linear"};
        table[HIERAGG_BARRIER] = {&barrier, "auto,dissemination,flat"};
        table[HIERAGG_REDUCE] = {&reduce, "auto,binomial,flat"};
        table[HIERAGG_ALLREDUCE] = {&allreduce, "auto,binomial,flat"};
        table[HIERAGG_SCAN] = {&scan, "auto,recursive_doubling"};
        table[HIERAGG_EXSCAN] = {&exscan, "auto,recursive_doubling"};
        table[HIERAGG_REDUCE_SCATTER] = {&reduceScatter, "auto,binomial,flat"};
        table[HIERAGG_REDUCE_SCATTER_BLOCK] = {&reduceScatterBlock, "auto,binomial,flat"};
    }
} tableInit;
}  // namespace

const RecipeInfo& recipeFor(hieragg_coll_kind kind) { return table[kind]; }

Schedule buildSchedule(const CollCall& call) {
    const RecipeInfo& r = recipeFor(call.args.kind);
    if (!r.build) throw std::runtime_error("no recipe for collective " + std::to_string(call.args.kind));
    return r.build(call);
}

bool useHierarchy(const CollCall& call) {
    return !call.inter && call.hierarchy != nullptr && !call.hierarchy->isTrivial();
}

}  // namespace hieragg::recipes
