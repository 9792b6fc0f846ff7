// reduce_scatter and reduce_scatter_block share one recipe: reduce + scatterv
// (SPEC 3.1), pulse by pulse. Each pulse of the whole vector is reduced to
// rank 0 (ReductionPulses.hpp) and rank 0 sends every owner the part of the
// pulse that falls in its block, straight into its rbuf.
#pragma once
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"

namespace hieragg::recipes {

// counts[j]: elements rank j of this (local) group receives. Intercommunicators:
// sendTotal is the length of this group's input vectors (what it reduces for the remote group).
Schedule reduceThenScatter(const CollCall& c, const std::vector<size_t>& counts, size_t sendTotal);

// The result blocks of a reduce_scatter(_block) call: rank j's count, its displacement in
// the reduced vector, and their sum.
struct ResultBlocks {
    std::vector<size_t> counts, displs;
    size_t total = 0;
};
ResultBlocks resultBlocksOf(const CollCall& c);

// The rows' own compositions (ReduceScatter.cpp): ring (not in place), recursive_halving.
Schedule ringReduceScatter(const CollCall& c, const std::vector<size_t>& counts, const std::vector<size_t>& displs);
Schedule halvingReduceScatter(const CollCall& c, const std::vector<size_t>& counts, const std::vector<size_t>& displs,
                              size_t total);

}  // namespace hieragg::recipes
