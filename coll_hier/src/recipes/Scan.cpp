// Inclusive scan: rank i gets a_0 op ... op a_i (ScanPulses.hpp).
#include <vector>

#include "ReductionPulses.hpp"
#include "ScanPulses.hpp"
#include "hieragg/algorithms/RecursiveDoublingScan.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule prefixReduction(const CollCall& c, bool exclusive) {
    const auto& a = c.args;
    ScheduleBuilder b(exclusive ? "flat-recursive-doubling-exscan" : "flat-recursive-doubling-scan");
    const PulsePlan plan = PulsePlan::of(c, a.rcount);
    const RecursiveDoublingScan scan{exclusive};
    const Group g = Group::whole(c.size, c.rank);
    const size_t bytes = CollCall::span(c.rtype, plan.perPulse);
    const size_t slots = std::min(kPulseWindow, plan.pulses);
    std::vector<std::vector<BufRef>> scratch(slots);
    for (auto& s : scratch)
        for (int i = 0; i < scan.scratchCount(); ++i) s.push_back(b.temp(bytes, CollCall::bias(c.rtype)));
    const BufRef input = reductionInput(c);
    std::vector<StepId> pulseDone;
    for (size_t p = 0; p < plan.pulses; ++p) {
        const ptrdiff_t off = static_cast<ptrdiff_t>(plan.first(p)) * c.rtype.extent;
        RecursiveDoublingScan::Pulse pulse;
        pulse.input = input.at(off);
        pulse.out = BufRef{kRecvBuf, off};
        pulse.type = TypeRef{kRecvType, plan.countOf(p)};
        const auto& s = scratch[p % slots];
        pulse.scratch[0] = s[0];
        if (s.size() > 1) pulse.scratch[1] = s[1];
        if (p >= kPulseWindow) pulse.scratchFree.add(pulseDone[p - kPulseWindow]);
        pulse.channel = segmentChannel(stageChannel(0), p);
        pulseDone.push_back(scan.emit(b, g, pulse));
    }
    return b.finish();
}

Schedule scan(const CollCall& c) { return prefixReduction(c, false); }

}  // namespace hieragg::recipes
