// The pipelined hierarchical rows ("hier_pipeline", whose builders call these): bcast,
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
// Largest fragment the model picks (below coll_hieragg_segment_size when that is larger):
// Open MPI's TCP BTL sends 64 KiB messages with a rendezvous (its eager limit counts its
// header), one more round trip per fragment. On the emulated cluster (2 x 4 round robin,
// 4 MiB bcast) 64 KiB fragments took 59-167 ms, 32 KiB ones 37-43 ms.
constexpr size_t kMaxFragmentBytes = 32 * 1024;

Schedule pipelinedBcast(const CollCall& c, const hier::StageChoice& s);
// Commutative operations (the registry's needs): children combine in a fixed tree order.
Schedule pipelinedReduce(const CollCall& c, const hier::StageChoice& s);
// Reduce to rank 0 and broadcast back down the same tree, fragment by fragment.
Schedule pipelinedAllreduce(const CollCall& c, const hier::StageChoice& s);

}  // namespace hieragg::recipes
