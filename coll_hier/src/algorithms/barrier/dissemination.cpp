// Dissemination barrier (flat, or among the leaders after the subspaces' fan-in): every
// member sends and receives in each round, an exchange round rather than a lone message.
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "model/WhyText.hpp"
#include "hieragg/algorithms/DisseminationBarrier.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    Estimate e = stageEstimate(a, q);
    StageChoice& s = e.choice;
    const LinkCost& l = *q.link;
    const int n = q.members;
    if (n <= 1) return e;
    s.predUs = std::ceil(std::log2(n)) * exchangeRoundUs(l);
    s.why = "ceil(log2 " + std::to_string(n) + ") rounds of " + model::fmt("%.3g", exchangeRoundUs(l)) + " us";
    return e;
}

// Its barrier over one space: the dissemination rounds.
static StepId space(ScheduleBuilder& b, const Group& g, StepId after, uint32_t channel) {
    return DisseminationBarrier{}.emit(b, g, after, channel);
}

extern const AlgorithmInfo barrier_dissemination = {
    HIERAGG_BARRIER, "dissemination", kServesFlat | kServesLeaders, 0, 0, 0, K::Knomial,
    "dissemination rounds (flat, or among the leaders after the subspaces' fan-in)", Pricing::Stage, cost, nullptr, space};

}  // namespace hieragg::hier::units
