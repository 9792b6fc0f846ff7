// reduce_scatter_block: reduce_scatter with rcount elements per rank
// (ReduceScatterPulses.hpp).
#include "ReduceScatterPulses.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule reduceScatterBlock(const CollCall& c) {
    std::vector<size_t> counts(c.size, c.args.rcount);
    // MPI: each group's input vector holds rcount elements per rank of its own group, and
    // both groups' vectors are equally long (recvcount differs when group sizes do).
    const size_t sendTotal = c.args.rcount * static_cast<size_t>(c.size);
    return reduceThenScatter(c, counts, sendTotal);
}

}  // namespace hieragg::recipes
