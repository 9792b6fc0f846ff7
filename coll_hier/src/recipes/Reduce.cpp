// Reduce (all-to-one, SPEC 3.1): pulses flow up the decomposition, each space
// reducing to its leader in a fixed tree order, leaders reducing to the root.
// Non-commutative ops keep rank order: hierarchical only when every group is a
// contiguous rank range, otherwise one flat in-order tree (ReductionPulses.hpp).
#include "PipelinedTree.hpp"
#include "ReductionPulses.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

namespace {
// Intercommunicator: the non-root group reduces to its local rank 0 (in local
// rank order), which sends each pulse to the root in the other group.
Schedule interReduce(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b("inter-local-reduce");
    const PulsePlan plan = PulsePlan::of(c, a.rcount);
    if (a.root == HIERAGG_PROC_NULL || plan.pulses == 0) return b.finish();
    const uint32_t sendStage = 1;
    if (a.root == HIERAGG_ROOT) {
        // The remote group's rank 0 sends the pulses in order, each on its own channel.
        for (size_t p = 0; p < plan.pulses; ++p)
            b.recv(0, BufRef{kRecvBuf, 0}.at(static_cast<ptrdiff_t>(plan.first(p)) * c.rtype.extent),
                   {kRecvType, plan.countOf(p)}, {}, segmentChannel(stageChannel(sendStage), p));
        return b.finish();
    }
    CollCall local = c;
    local.inter = false;
    local.args.in_place = 0;
    b.setLocalComm(true);
    PulsedReduce red(b, local, 0, false, 0, plan);
    std::vector<StepId> pulseDone;
    for (size_t p = 0; p < plan.pulses; ++p) {
        Deps gate;
        if (p >= kPulseWindow) gate.add(pulseDone[p - kPulseWindow]);
        const ptrdiff_t off = static_cast<ptrdiff_t>(plan.first(p)) * c.rtype.extent;
        const TypeRef t{kRecvType, plan.countOf(p)};
        auto r = red.emitPulse(p, BufRef{kSendBuf, off}, b.join(gate), t, nullptr, gate, {});
        Deps done{r.done};
        if (c.rank == 0) {
            b.setLocalComm(false);
            done.add(b.send(a.root, r.at, t, r.ready, segmentChannel(stageChannel(sendStage), p)));
            b.setLocalComm(true);
        }
        pulseDone.push_back(b.join(done));
    }
    return b.finish();
}
}  // namespace

Schedule reduce(const CollCall& c) {
    if (c.inter) return interReduce(c);
    const auto& a = c.args;
    ScheduleBuilder b;
    const PulsePlan plan = PulsePlan::of(c, a.rcount);
    const std::shared_ptr<const hier::Plan> sel = hier::planOf(c);
    if (auto built = builtByRow(c, *sel)) return std::move(*built);
    const bool hierarchical = reduceHierarchically(*sel);
    PulsedReduce red(b, c, a.root, hierarchical, 0, plan, sel.get());
    b.appendAlgorithm(red.name());
    const bool isRoot = c.rank == a.root;
    // MPI_IN_PLACE is meaningful only at the root, whose input is then in rbuf.
    const BufRef input{isRoot && a.in_place ? kRecvBuf : kSendBuf, 0};
    std::vector<StepId> pulseDone;
    for (size_t p = 0; p < plan.pulses; ++p) {
        Deps gate;
        if (p >= kPulseWindow) gate.add(pulseDone[p - kPulseWindow]);
        const ptrdiff_t off = static_cast<ptrdiff_t>(plan.first(p)) * c.rtype.extent;
        const TypeRef t{kRecvType, plan.countOf(p)};
        const BufRef out{kRecvBuf, off};
        auto r = red.emitPulse(p, input.at(off), kNoStep, t, isRoot ? &out : nullptr, gate, {});
        pulseDone.push_back(r.done);
    }
    return b.finish();
}

}  // namespace hieragg::recipes
