// hier_knomial: one minimum-height k-nomial tree over all levels, every non-leader's
// parent in its own group (type I, SPEC 3.2 algorithms 2-4; WholeTree.hpp), priced by the
// per-edge tree model (model/TreeModel.hpp).
#include "algorithms/Row.hpp"
#include "hieragg/hier/WholeTree.hpp"
#include "model/TreeModel.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    return estimateOf(minimumHeightTree(a, q.call, q.load, q.params, q.links));
}
constexpr Pricing P = Pricing::WholeTree;
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition;
constexpr const char* kSummary =
    "one minimum-height k-nomial tree over all levels (every non-leader's parent in its own group)";

extern const AlgorithmInfo bcast_hier_knomial = {HIERAGG_BCAST, "hier_knomial", kServesWhole, kNeeds, kTree,
                                                 kTraitTree, K::Knomial, kSummary, P, cost, nullptr, nullptr, knomialWholeTree};
extern const AlgorithmInfo barrier_hier_knomial = {
    HIERAGG_BARRIER, "hier_knomial", kServesWhole, kNeeds, kTunesRadix, kTraitTree, K::Knomial,
    "fan-in and release over one minimum-height k-nomial tree", P, cost, nullptr, nullptr, knomialWholeTree};
extern const AlgorithmInfo reduce_hier_knomial = {HIERAGG_REDUCE, "hier_knomial", kServesWhole,
                                                  kNeeds | kNeedsCommutativeOp, kPulsed, kTraitTree,
                                                  K::Knomial, kSummary, P, cost, nullptr, nullptr, knomialWholeTree};
extern const AlgorithmInfo allreduce_hier_knomial = {HIERAGG_ALLREDUCE, "hier_knomial", kServesWhole,
                                                     kNeeds | kNeedsCommutativeOp, kPulsed,
                                                     kTraitTree, K::Knomial, kSummary, P, cost, nullptr, nullptr, knomialWholeTree};
extern const AlgorithmInfo reduce_scatter_hier_knomial = {HIERAGG_REDUCE_SCATTER, "hier_knomial", kServesWhole,
                                                          kNeeds | kNeedsCommutativeOp, kPulsed,
                                                          kTraitTree, K::Knomial, kSummary, P, cost, nullptr, nullptr, knomialWholeTree};
extern const AlgorithmInfo reduce_scatter_block_hier_knomial = {
    HIERAGG_REDUCE_SCATTER_BLOCK, "hier_knomial", kServesWhole, kNeeds | kNeedsCommutativeOp, kPulsed,
    kTraitTree, K::Knomial, kSummary, P, cost, nullptr, nullptr, knomialWholeTree};

}  // namespace hieragg::hier::units
