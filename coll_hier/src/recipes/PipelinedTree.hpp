// The pipelined hierarchical rows ("hier_pipeline", Emitter::PipelinedTree): bcast,
// reduce and allreduce (reduce + bcast) over one tree spanning every level (PipelineTree.hpp: leaders in a chain,
// k-nomial under each leader), cut into fragments of the plan's segment. The schedule
// holds one fragment's steps as a template (FragmentPipeline) that the Task runs for
// every fragment, at most kFragmentWindow in flight per rank: a segment that reaches a
// leader goes on to the next leader and into its subspace while the next one arrives,
// the schedule's size does not grow with the message, and temporaries (reduce scratch)
// are segment x children x window.
#pragma once
#include <cstddef>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::recipes {

constexpr size_t kFragmentWindow = 8;

Schedule pipelinedBcast(const CollCall& c, const hier::StageChoice& s);
// Commutative operations (the registry's needs): children combine in a fixed tree order.
Schedule pipelinedReduce(const CollCall& c, const hier::StageChoice& s);
// Reduce to rank 0 and broadcast back down the same tree, fragment by fragment.
Schedule pipelinedAllreduce(const CollCall& c, const hier::StageChoice& s);

}  // namespace hieragg::recipes
