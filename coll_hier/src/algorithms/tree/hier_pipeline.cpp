// hier_pipeline (PipelinedTree): fragments stream through one tree over all levels, leaders
// in a chain and k-nomial or a chain below each leader, priced by the pipeline model
// (model/PipelineModel.hpp). The candidates are SPEC 3.5's chain chunk and powers of two up
// to m, capped by coll_hieragg_segment_size and kMaxFragmentBytes (rendezvous above it);
// below the leaders the best of k-nomial 2..4 and the chain.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/Row.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"
#include "hieragg/hier/PipelineTree.hpp"
#include "model/PipelineModel.hpp"
#include "model/WhyText.hpp"
#include "recipes/PipelinedTree.hpp"

namespace hieragg::hier::units {

static StageChoice predictPipeline(const AlgorithmInfo& a, const CollCall& c, const Load& ld, const CostParams& p,
                                   const std::vector<int>& links) {
    StageChoice s = callChoice(a, c, links);
    const Hierarchy& h = *c.hierarchy;
    const double m = std::max(ld.bytes, 1.0);
    const double minSeg = static_cast<double>(std::max<size_t>(ld.elemBytes, 256));
    std::vector<double> cands;
    {
        const LinkCost& top = p.link[links.back()];
        const double ts = top.alpha_us + top.theta_us;
        const double bw = top.beta_us_per_byte > 0 ? 1.0 / top.beta_us_per_byte : 1e12;
        cands.push_back(TreeBcast::optimalChainSegmentBytes(m, std::max(3, h.groupCount(h.levels() - 1) + 1), ts, bw));
    }
    for (double x = minSeg; x < m; x *= 2) cands.push_back(x);
    cands.push_back(m);
    double best = kInf, bestStage = 0, bestSeg = m;
    TreeShape bestShape = TreeShape::knomial(2);
    // Equal blocks of consecutive ranks: each candidate priced from the group counts, the
    // tree never built (PipelineModel.hpp); otherwise the tree built once per shape.
    std::optional<std::vector<int>> blocks = equalBlockCounts(h);
    if (blocks && links.size() < blocks->size()) blocks.reset();
    // Below the leaders: k-nomial of radix 2..4 (short fill) or a chain (one send per
    // fragment per rank: the shortest stage).
    for (const TreeShape inner : {TreeShape::knomial(2), TreeShape::knomial(3), TreeShape::knomial(4),
                                  TreeShape::chain()}) {
        // Root 0 whatever the call's root: the plan is shared by every root of the class.
        const MemberTree t = blocks ? MemberTree{} : pipelineTree(h, 0, TreeShape::chain(), inner);
        for (double x : cands) {
            x = std::min(std::max(std::floor(x), minSeg), m);
            const double cap = std::min(ld.segmentCap > 0 ? ld.segmentCap : kInf,
                                        static_cast<double>(recipes::kMaxFragmentBytes));
            x = std::max(std::min(x, cap), static_cast<double>(ld.elemBytes));
            x = std::max(std::floor(x / ld.elemBytes), 1.0) * ld.elemBytes;  // whole elements
            double stage = 0;
            const double us =
                blocks ? pipelineFromTimesUs(blockPipelineTimes(*blocks, TreeShape::chain(), inner, links, p, ld, x), ld,
                                             x, &stage)
                       : pipelineUs(t, h, links, p, ld, x, &stage);
            if (us < best) best = us, bestSeg = x, bestShape = inner, bestStage = stage;
        }
    }
    s.shape = bestShape;
    s.segmentBytes = static_cast<size_t>(bestSeg);
    s.predUs = best;
    s.why = "chain of leaders, " + bestShape.name() + " below; " + fmt("%.0f", std::ceil(m / bestSeg)) + " fragments of " +
            fmt("%.0f", bestSeg) + " B, stage " + fmt("%.3g", bestStage) + " us, window " +
            std::to_string(recipes::kFragmentWindow);
    return s;
}

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    return estimateOf(predictPipeline(a, q.call, q.load, q.params, q.links));
}
constexpr Pricing P = Pricing::WholeTree;
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition;

static std::optional<Schedule> buildBcast(const CollCall& c, const Plan& p) {
    return recipes::pipelinedBcast(c, p.stages[0]);
}
static std::optional<Schedule> buildReduce(const CollCall& c, const Plan& p) {
    return recipes::pipelinedReduce(c, p.stages[0]);
}
static std::optional<Schedule> buildAllreduce(const CollCall& c, const Plan& p) {
    return recipes::pipelinedAllreduce(c, p.stages[0]);
}

extern const AlgorithmInfo bcast_hier_pipeline = {
    HIERAGG_BCAST, "hier_pipeline", kServesWhole, kNeeds, kTree, kTraitTree, K::Knomial,
    "fragments stream down one tree over all levels: leaders in a chain, k-nomial below each leader", P, cost, buildBcast};
extern const AlgorithmInfo reduce_hier_pipeline = {
    HIERAGG_REDUCE, "hier_pipeline", kServesWhole, kNeeds | kNeedsCommutativeOp, kTree, kTraitTree,
    K::Knomial, "fragments stream up one tree over all levels: k-nomial to each leader, leaders in a chain", P, cost, buildReduce};
extern const AlgorithmInfo allreduce_hier_pipeline = {
    HIERAGG_ALLREDUCE, "hier_pipeline", kServesWhole, kNeeds | kNeedsCommutativeOp, kTree, kTraitTree,
    K::Knomial, "fragments reduced up one tree over all levels (leaders in a chain) and broadcast back down it", P,
    cost, buildAllreduce};

}  // namespace hieragg::hier::units
