// reduce_scatter_block: reduce_scatter with rcount elements per rank
// (ReduceScatterPulses.hpp).
#include "ReduceScatterPulses.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule reduceScatterBlock(const CollCall& c) {
    std::vector<size_t> counts(c.size, c.args.rcount);
    // Intercommunicators: this group's input holds one block per remote rank.
    const size_t sendTotal = c.args.rcount * static_cast<size_t>(c.inter ? c.remoteSize : c.size);
    return reduceThenScatter(c, counts, sendTotal);
}

}  // namespace hieragg::recipes
