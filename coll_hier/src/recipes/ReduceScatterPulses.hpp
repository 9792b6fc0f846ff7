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

}  // namespace hieragg::recipes
