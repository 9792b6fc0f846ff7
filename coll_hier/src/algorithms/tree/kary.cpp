// The k-ary tree per space (breadth-first numbering: not in rank order), best k of
// 2..kMaxRadix by the exact tree model.
#include <algorithm>
#include <string>

#include "algorithms/Row.hpp"
#include "model/SharedCoresModel.hpp"
#include "model/TreeModel.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    Estimate e = stageEstimate(a, q);
    const Load& ld = q.load;
    const LinkCost& l = *q.link;
    const int n = q.members, top = std::min(kMaxRadix, std::max(2, n - 1));
    if (n <= 1) return e;
    if (ld.sharedCores > 0) return estimateOf(sharedCoresTree(a, ld, l, n));
    const double alpha = l.alpha_us, b = packetUs(l, ld, unitBytes(ld));
    const RadixChoice r = bestRadix(TreeShape::kary, 2, top, n, ld, hopOf(l, ld, unitBytes(ld)));
    e.choice.shape = TreeShape::kary(r.k);
    e.choice.predUs = r.us;
    e.choice.why = "best k of 2.." + std::to_string(top) + " with a/b=" + fmt("%.3g", alpha) + "/" + fmt("%.3g", b);
    return e;
}
constexpr Pricing P = Pricing::Stage;
constexpr const char* kReduction = "k-ary tree per space (breadth-first numbering: not in rank order)";
constexpr unsigned kNeeds = kNeedsCommutativeOp;

extern const AlgorithmInfo bcast_kary = {HIERAGG_BCAST, "kary", kAny, 0, kTree, kTraitTree, K::Kary,
                                         "k-ary tree per space", P, cost};
extern const AlgorithmInfo reduce_kary = {HIERAGG_REDUCE, "kary", kAny, kNeeds, kPulsed, kTraitTree, K::Kary,
                                          kReduction, P, cost};
extern const AlgorithmInfo allreduce_kary = {HIERAGG_ALLREDUCE, "kary", kAny, kNeeds, kPulsed, kTraitTree,
                                             K::Kary, kReduction, P, cost};
extern const AlgorithmInfo reduce_scatter_kary = {HIERAGG_REDUCE_SCATTER, "kary", kAny, kNeeds, kPulsed,
                                                  kTraitTree, K::Kary, kReduction, P, cost};
extern const AlgorithmInfo reduce_scatter_block_kary = {HIERAGG_REDUCE_SCATTER_BLOCK, "kary", kAny, kNeeds, kPulsed,
                                                        kTraitTree, K::Kary, kReduction, P, cost};

}  // namespace hieragg::hier::units
