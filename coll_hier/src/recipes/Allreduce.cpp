// Allreduce = reduce + bcast (SPEC 3.1) or, for commutative ops when the model says it
// pays, one of the slice compositions (SliceAllreduce.hpp). Reduce + bcast runs pulse by pulse (one fragment template): each pulse is reduced
// up the decomposition to rank 0 (fixed tree order, rank order for
// non-commutative ops) and broadcast back down the same spaces straight into
// every rank's rbuf, so only a window of pulses needs scratch memory.
#include "PipelinedTree.hpp"
#include "ReductionPulses.hpp"
#include "hieragg/Transport.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "SliceAllreduce.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/SpaceGroup.hpp"

namespace hieragg::recipes {

namespace {
// Intercommunicator: each group reduces its own data to local rank 0, the two
// rank 0s swap their products, and each broadcasts the other group's product
// inside its own group (MPI: every rank gets the reduction of the remote group).
Schedule interAllreduce(const CollCall& c) {
    ScheduleBuilder b("inter-reduce-exchange-bcast");
    const PulsePlan plan = PulsePlan::of(c, c.args.rcount);
    const uint32_t exchangeStage = 1, bcastStage = 2;
    const uint32_t ch = stageChannel(exchangeStage);
    const BufRef out{kRecvBuf, 0};
    // Local rank 0 sends the pulse to the remote rank 0 and receives the remote product.
    reduceToRemote(b, c, plan, 0, ch, [&](PulsedReduce& red, const TypeRef& t) {
        StepId have = kNoStep;
        if (c.rank == 0) {
            b.setLocalComm(false);
            have = b.recv(0, out, t, {}, ch);
            b.setLocalComm(true);
        }
        red.emitBcast(0, out, t, have, {}, bcastStage);
    });
    return b.finish();
}
}  // namespace

// The leader space offloaded (docs/offload.md): each pulse is reduced inside the subspaces
// up to the leaders, the leaders combine it with one fabric allreduce (pulses in call
// order, so every leader starts them alike), and it is broadcast back down.
Schedule offloadedAllreduce(const CollCall& c, const hier::Plan& sel) {
    const auto& a = c.args;
    ScheduleBuilder b;
    const PulsePlan plan = PulsePlan::of(c, a.rcount);
    PulsedReduce red(b, c, 0, true, 0, plan, &sel, true);
    b.appendAlgorithm(red.name() + "+leaders:ofi-allreduce+bcast");
    const hier::Hierarchy& h = *c.hierarchy;
    const hier::SpaceGroup leaders = hier::spaceGroup(h, h.levels(), c.rank, -1);
    const bool leader = leaders.group.me >= 0 && leaders.group.size() > 1;
    const BufRef input = reductionInput(c);
    // The wire form: this pulse's elements packed (contiguous basic elements).
    const size_t pulseBytes = plan.perPulse * c.rtype.size;
    std::vector<BufRef> wireIn, wireOut;
    for (size_t i = 0; leader && i < std::min(kPulseWindow, std::max<size_t>(plan.pulses, 1)); ++i) {
        wireIn.push_back(b.temp(pulseBytes));
        wireOut.push_back(b.temp(pulseBytes));
    }
    std::vector<StepId> pulseDone;
    StepId lastFabric = kNoStep;
    for (size_t p = 0; p < plan.pulses; ++p) {
        Deps gate;
        if (p >= kPulseWindow) gate.add(pulseDone[p - kPulseWindow]);
        const ptrdiff_t off = static_cast<ptrdiff_t>(plan.first(p)) * c.rtype.extent;
        const TypeRef t{kRecvType, plan.countOf(p)};
        const BufRef out{kRecvBuf, off};
        auto r = red.emitPulse(p, input.at(off), kNoStep, t, &out, gate, {});
        StepId have = r.ready;
        Deps done{r.done};
        if (leader) {
            const size_t slot = p % wireIn.size();
            const TypeRef packed{kPackedType, plan.countOf(p) * c.rtype.size};
            Deps in{r.ready};
            in.add(gate);
            StepId packedIn = b.copy(out, t, wireIn[slot], packed, in);
            // Chained: a leader starts its pulses in order whatever order they became ready;
            // a pulse longer than the provider's maxBytes goes as several operations.
            const size_t per = std::max<size_t>(1, c.offload->maxBytes / c.rtype.size);
            for (size_t first = 0; first < plan.countOf(p); first += per) {
                const ptrdiff_t at = static_cast<ptrdiff_t>(first * c.rtype.size);
                lastFabric = b.collective(static_cast<uint8_t>(FabricKind::Allreduce), wireIn[slot].at(at),
                                          wireOut[slot].at(at), std::min(per, plan.countOf(p) - first), 0,
                                          {packedIn, lastFabric});
            }
            have = b.copy(wireOut[slot], packed, out, t, lastFabric);
            done.add(have);
        }
        Deps bcastGate = gate;
        if (a.in_place) bcastGate.add(r.done);
        Emitted e = red.emitBcast(p, out, t, have, bcastGate, red.stageCount());
        done.add(e.done);
        pulseDone.push_back(b.join(done));
    }
    return b.finish();
}

Schedule allreduce(const CollCall& c) {
    if (c.inter) return interAllreduce(c);
    const auto& a = c.args;
    const std::shared_ptr<const hier::Plan> sel = hier::planOf(c);
    // Rows of their own composition: the bandwidth-optimal ones (ring, Rabenseifner, ...;
    // commutative ops), the pipelined tree.
    if (auto built = builtByRow(c, *sel)) return std::move(*built);
    if (sel->mode == hier::Plan::Mode::Levels && sel->stages.back().algo &&
        (sel->stages.back().algo->traits & hier::kTraitFabric))
        return offloadedAllreduce(c, *sel);
    ScheduleBuilder b;
    const PulsePlan plan = PulsePlan::of(c, a.rcount);
    const bool hierarchical = reduceHierarchically(*sel);
    const int root = 0;
    PulsedReduce red(b, c, root, hierarchical, 0, plan, sel.get());
    b.appendAlgorithm(red.name() + "+bcast");
    const BufRef input = reductionInput(c);
    FragmentPipeline frags = plan.fragments(static_cast<ptrdiff_t>(plan.perPulse) * c.rtype.extent);
    red.addScratchRings(frags);
    const TypeRef t{kRecvType, plan.perPulse};
    const BufRef out{kRecvBuf, 0};
    emitPulses(b, plan, std::move(frags), [&] {
        auto r = red.emitPulse(0, input, kNoStep, t, c.rank == root ? &out : nullptr, {}, {});
        // In place, rbuf still holds this rank's input until its part of the reduce is done.
        Deps bcastGate;
        if (a.in_place) bcastGate.add(r.done);
        red.emitBcast(0, out, t, r.ready, bcastGate, red.stageCount());
    });
    return b.finish();
}

}  // namespace hieragg::recipes
