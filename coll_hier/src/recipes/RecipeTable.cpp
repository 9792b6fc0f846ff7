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
