// `hierarchical` of the v-variants (TwoStage.hpp): sizes to the leaders first, then one
// message per group (gatherv, scatterv) or per pair of groups (alltoallv, alltoallw). Never
// the model's choice; forced, the plan prices it as the minimum-height tree over the levels.
#include "algorithms/Row.hpp"
#include "model/TreeModel.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    return estimateOf(model::minimumHeightTree(a, q.call, q.load, q.params, q.links));
}
constexpr Pricing P = Pricing::ForcedOnly;
constexpr unsigned T = 0;
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition;
constexpr const char* kPairs = "size rows to the leaders first, then one message per pair of groups (TwoStage.hpp)";

extern const AlgorithmInfo gatherv_hierarchical = {
    HIERAGG_GATHERV, "hierarchical", kServesWhole, kNeeds, 0, T, K::Knomial,
    "sizes to the leaders first, then one message per group to the root (TwoStage.hpp)", P, cost};
extern const AlgorithmInfo scatterv_hierarchical = {
    HIERAGG_SCATTERV, "hierarchical", kServesWhole, kNeeds, 0, T, K::Knomial,
    "sizes to the leaders first, then one message per group from the root (TwoStage.hpp)", P, cost};
extern const AlgorithmInfo alltoallv_hierarchical = {HIERAGG_ALLTOALLV, "hierarchical", kServesWhole, kNeeds, 0, T,
                                                     K::Knomial, kPairs, P, cost};
extern const AlgorithmInfo alltoallw_hierarchical = {HIERAGG_ALLTOALLW, "hierarchical", kServesWhole, kNeeds, 0, T,
                                                     K::Knomial, kPairs, P, cost};

}  // namespace hieragg::hier::units
