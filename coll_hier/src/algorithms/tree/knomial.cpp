// The k-nomial tree per space (TreeBcast / OrderedTreeReduce / PackedSubtrees gather / scatter):
// SPEC 3.2's k* from a/b and the band of widths within epsilon of F(k*); the exact tree
// model (real heights, children served one after the other) picks inside it.
#include <algorithm>
#include <string>

#include "algorithms/Row.hpp"
#include "hieragg/aggtree/CostModel.hpp"
#include "model/SharedCoresModel.hpp"
#include "model/TreeModel.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    Estimate e = stageEstimate(a, q);
    const Load& ld = q.load;
    const LinkCost& l = *q.link;
    if (q.members <= 1) return e;
    if (ld.sharedCores > 0) return estimateOf(sharedCoresTree(a, ld, l, q.members));
    // Gather/scatter move every block through the root whatever k is: k only trades latency.
    // The rendezvous is paid once per hop (HopPrice.hpp): with the latency, not per child.
    const aggtree::HopPrice hop =
        ld.shape == Shape::Gather ? aggtree::HopPrice{l.alpha_us, 0.0, l.theta_us} : hopOf(l, ld, unitBytes(ld));
    const double alpha = hop.alpha + hop.handshake, b = hop.occupancy;
    const aggtree::WidthBand band = aggtree::widthBand(alpha, std::max(b, 1e-9), q.members, q.params.epsilon_us);
    const RadixChoice r =
        bestRadix(TreeShape::knomial, std::max(2, band.k_min), std::max(2, band.k_max), q.members, ld, hop);
    e.choice.shape = TreeShape::knomial(r.k);
    e.choice.predUs = r.us + (ld.shape == Shape::Gather ? ld.bytes * l.beta_us_per_byte : 0.0);
    e.choice.why = "k*=" + fmt("%.2f", aggtree::optimalRealK(alpha, std::max(b, 1e-9))) + " from a/b=" +
                   fmt("%.3g", alpha) + "/" + fmt("%.3g", b) + ", band [" + std::to_string(band.k_min) + "," +
                   std::to_string(band.k_max) + "]";
    return e;
}
constexpr Pricing P = Pricing::Stage;
constexpr const char* kReduction = "k-nomial tree per space, k from the model; rank order for non-commutative ops";

extern const AlgorithmInfo bcast_knomial = {HIERAGG_BCAST, "knomial", kAny, 0, kTree, kTraitTree, K::Knomial,
                                            "k-nomial tree per space, k from the model", P, cost};
extern const AlgorithmInfo gather_knomial = {HIERAGG_GATHER, "knomial", kAny, 0, kTunesRadix, kTraitTree,
                                             K::Knomial,
                                             "k-nomial tree per space; leaders forward their subspace's blocks in "
                                             "one message",
                                             P, cost};
extern const AlgorithmInfo scatter_knomial = {HIERAGG_SCATTER, "knomial", kAny, 0, kTunesRadix, kTraitTree,
                                              K::Knomial, "k-nomial tree per space, the mirror of gather", P, cost};
extern const AlgorithmInfo barrier_knomial = {HIERAGG_BARRIER, "knomial", kAny, 0, kTunesRadix, kTraitTree,
                                              K::Knomial, "fan-in up a k-nomial tree, release down the same tree",
                                              P, cost};
extern const AlgorithmInfo reduce_knomial = {HIERAGG_REDUCE, "knomial", kAny, 0, kPulsed, kTraitTree,
                                             K::Knomial, kReduction, P, cost};
extern const AlgorithmInfo allreduce_knomial = {HIERAGG_ALLREDUCE, "knomial", kAny, 0, kPulsed, kTraitTree,
                                                K::Knomial, kReduction, P, cost};
extern const AlgorithmInfo reduce_scatter_knomial = {HIERAGG_REDUCE_SCATTER, "knomial", kAny, 0, kPulsed,
                                                     kTraitTree, K::Knomial, kReduction, P, cost};
extern const AlgorithmInfo reduce_scatter_block_knomial = {HIERAGG_REDUCE_SCATTER_BLOCK, "knomial", kAny, 0,
                                                           kPulsed, kTraitTree, K::Knomial, kReduction, P, cost};

}  // namespace hieragg::hier::units
