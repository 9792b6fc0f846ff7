// Reduce (all-to-one, SPEC 3.1): pulses (one fragment template) flow up the decomposition, each space
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
    const ptrdiff_t stride = static_cast<ptrdiff_t>(plan.perPulse) * c.rtype.extent;
    const TypeRef t{kRecvType, plan.perPulse};
    const uint32_t sendChannel = stageChannel(sendStage);
    if (a.root == HIERAGG_ROOT) {
        // The remote group's rank 0 sends the pulses in order, each on its own channel.
        emitPulses(b, plan, plan.fragments(stride), [&] { b.recv(0, BufRef{kRecvBuf, 0}, t, {}, sendChannel); });
        return b.finish();
    }
    reduceToRemote(b, c, plan, a.root, sendChannel, [](PulsedReduce&, const TypeRef&) {});
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
    FragmentPipeline frags = plan.fragments(static_cast<ptrdiff_t>(plan.perPulse) * c.rtype.extent);
    red.addScratchRings(frags);
    const BufRef out{kRecvBuf, 0};
    emitPulses(b, plan, std::move(frags), [&] {
        red.emitPulse(0, input, kNoStep, {kRecvType, plan.perPulse}, isRoot ? &out : nullptr, {}, {});
    });
    return b.finish();
}

}  // namespace hieragg::recipes
