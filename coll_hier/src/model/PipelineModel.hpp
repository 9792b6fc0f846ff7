// The pipeline model of the hier_pipeline rows (PipelinedTree): fragments of c bytes stream
// through one tree over every level (PipelineTree.hpp).
#pragma once
#include <vector>

#include "hieragg/algorithms/MemberTree.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "model/StageLoad.hpp"

namespace hieragg::hier::model {

// One fragment of c bytes to one child over link l, as the stream sees it: every fragment
// is a message of its own, whose start-up (t_s = alpha + theta, SPEC 3.5's per chunk) runs
// while the previous fragment's bytes cross, so the longer of the two: max(alpha + theta,
// theta + c beta (+ c gamma reducing)). Small fragments are bound by the start-up, large
// ones by their bytes. A fragment past the link's eager limit waits for its rendezvous, but
// with kFragmentWindow fragments in flight that handshake overlaps the other fragments'
// bytes, as a tree's siblings' handshakes overlap (aggtree/HopPrice.hpp): the stream does
// not pay it per fragment; the fill pays it once per hop (below).
double fragmentUs(const LinkCost& l, const Load& ld, double c);

// What the model reads off a pipeline tree for fragments of c bytes: the first fragment's
// latest arrival (per edge alpha + the rendezvous past the eager limit + the occupancy of the
// children served before it and its own, a parent serving its last child first, as
// TreeBcast does: HopPrice's arrival), the stage: the busiest vertex's per-fragment work
// on one link class (its children over that link served one after the other, each
// fragmentUs on it; children over different links at once: a leader's fragment crosses the
// network while its node child's copy runs, the wire and the memory being different
// resources). The fill charges alpha once per edge: the first fragment's latency.
struct PipelineTimes {
    double fill = 0, stage = 0;
};

// Vertex by vertex over the built tree `t`.
PipelineTimes pipelineTimes(const MemberTree& t, const Hierarchy& h, const std::vector<int>& links,
                            const CostParams& p, const Load& ld, double c);

// The same numbers for pipelineTree(h, 0, leaders, inner) when h is equal blocks of
// consecutive ranks with radices `counts` (equalBlockCounts), without building it: the
// tree is one `inner` tree per level over counts[f] (`leaders` over the outermost groups),
// a vertex's children its lower levels' first then its own level's. Every vertex whose
// lower levels are zero carries the same subtree below; what differs is when it arrives and
// how much it served before (its children above), and the arrivals below only grow with
// both, so one class per (level, served before) keeps its latest vertex: O(counts x classes)
// instead of O(P). The same doubles as pipelineTimes on the built tree
// (tests/hier/block_pipeline_times_test.cpp).
PipelineTimes blockPipelineTimes(const std::vector<int>& counts, TreeShape leaders, TreeShape inner,
                                 const std::vector<int>& links, const CostParams& p, const Load& ld, double c);

// T(c) = fill(c) + (m/c - 1) * stage(c): the first fragment reaches the last rank, then one
// fragment leaves every stage time. At most kFragmentWindow (W = 8) fragments are in flight
// per rank, but the window slides (FragmentPipeline: fragment f starts when f - W is done),
// so it stalls only when W stages are shorter than a fragment's round trip, 2 alpha + a
// stage; a stage is at least every edge's alpha (fragmentUs), so with W >= 3 it never does.
// Allreduce goes up and down the same tree. stageOut: the stage time used.
double pipelineFromTimesUs(PipelineTimes t, const Load& ld, double c, double* stageOut);

// pipelineFromTimesUs(pipelineTimes(...)).
double pipelineUs(const MemberTree& t, const Hierarchy& h, const std::vector<int>& links, const CostParams& p,
                  const Load& ld, double c, double* stageOut);

}  // namespace hieragg::hier::model
