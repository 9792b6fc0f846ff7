// The leader space as one offloaded collective on the group joined at setup
// (Transport::icollective, docs/offload.md), priced like the provider's software
// algorithms: barrier and allreduce are recursive doubling (ceil(log2 n) rounds, the
// whole pulse each round, pulses one after the other); bcast is a binomial scatter plus
// a ring allgather. Costs coll_hieragg_cost_ofi_*.
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "algorithms/offload/OffloadPreference.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier::units {

static Estimate price(const AlgorithmInfo& a, const CostQuery& q) {
    const int n = q.members;
    Estimate e = stageEstimate(a, q);
    if (n <= 1) return e;
    const LinkCost& o = q.params.offload;
    const Load& ld = q.load;
    StageChoice& s = e.choice;
    const double rounds = std::ceil(std::log2(n));
    if (ld.shape == Shape::Barrier) {
        s.predUs = rounds * o.alpha_us;
        s.why = fmt("%.0f", rounds) + " offloaded rounds";
    } else if (ld.shape == Shape::Allreduce) {
        s.predUs = ld.pulses * rounds * (o.alpha_us + ld.pulseBytes * (o.beta_us_per_byte + o.gamma_us_per_byte));
        s.why = fmt("%.0f", ld.pulses) + " offloaded pulses x " + fmt("%.0f", rounds) + " rounds";
    } else {
        const double m = ld.bytes;
        s.predUs = rounds * o.alpha_us + m * o.beta_us_per_byte * (n - 1) / n +
                   (n - 1) * (o.alpha_us + m / n * o.beta_us_per_byte);
        s.why = "offloaded scatter+allgather over " + std::to_string(n);
    }
    return e;
}
static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) { return preferredIfAsked(price(a, q), q); }
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition | kNeedsOffload;

extern const AlgorithmInfo bcast_ofi = {
    HIERAGG_BCAST, "ofi", kServesLeaders, kNeeds, 0, kTraitFabric, K::Knomial,
    "the leader space as one fi_broadcast on the group joined at setup (docs/offload.md)", Pricing::Stage, cost};
extern const AlgorithmInfo barrier_ofi = {HIERAGG_BARRIER, "ofi", kServesLeaders, kNeeds, 0, kTraitFabric,
                                          K::Knomial, "the leader space as one fi_barrier on the group joined at setup",
                                          Pricing::Stage, cost};
extern const AlgorithmInfo allreduce_ofi = {
    HIERAGG_ALLREDUCE, "ofi", kServesLeaders, kNeeds | kNeedsCommutativeOp, kTunesSegment, kTraitFabric,
    K::Knomial, "reduce to the leaders, fi_allreduce among them per pulse, broadcast down (predefined ops)",
    Pricing::Stage, cost};

}  // namespace hieragg::hier::units
