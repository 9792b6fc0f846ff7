// The pipeline model of the hier_pipeline rows (PipelinedTree): fragments of c bytes stream
// through one tree over every level (PipelineTree.hpp).
#pragma once
#include <vector>

#include "hieragg/algorithms/MemberTree.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "model/StageLoad.hpp"

namespace hieragg::hier::model {

// The pipelined rows (PipelinedTree): fragments of c bytes stream through one tree over
// every level (PipelineTree.hpp). T(c) = fill(c) + (m/c - 1) * stage(c): the first fragment
// reaches the last rank along the tree's slowest path (per-edge alpha + the children
// served before it), then one fragment leaves every stage time, the busiest vertex's
// per-fragment work (its children served one after the other, each theta + c beta
// (+ c gamma reducing) on that edge's link). At most kFragmentWindow fragments are in
double pipelineUs(const MemberTree& t, const Hierarchy& h, const std::vector<int>& links, const CostParams& p,
                  const Load& ld, double c, double* stageOut);

}  // namespace hieragg::hier::model
