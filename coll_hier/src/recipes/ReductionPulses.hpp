// Shared machinery of the reduction recipes: a reduction to one root runs as
// pulses of segmentBytes (SPEC 3.3) through the spaces of the decomposition,
// innermost first (SPEC 3.1), each space an OrderedTreeReduce over the tree the
// plan chose for its stage (or one minimum-height tree over the whole hierarchy,
// Selection.hpp). A recipe emits pulse 0 only; with more than one pulse those
// steps are the schedule's fragment template (Schedule.hpp, FragmentPipeline), which
// the Task runs once per pulse with at most kPulseWindow in flight per rank, the
// scratch a ring of kPulseWindow slots. The schedule's size and its temporary memory
// (segment x tree degree x window) do not grow with the message.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Emitted.hpp"
#include "hieragg/algorithms/OrderedTreeReduce.hpp"
#include "hieragg/hier/Selection.hpp"
#include "PipelinedTree.hpp"

namespace hieragg::recipes {

constexpr size_t kPulseWindow = kFragmentWindow;

// How a vector of `count` elements is cut into pulses.
struct PulsePlan {
    size_t perPulse = 0;  // elements per pulse
    size_t pulses = 0;    // 0 when count == 0
    size_t count = 0;
    static PulsePlan of(const CollCall& c, size_t count);
    size_t first(size_t p) const { return p * perPulse; }
    size_t countOf(size_t p) const { return std::min(perPulse, count - first(p)); }
    // The pulses as fragments: the user's buffers move `userStride` bytes per pulse.
    FragmentPipeline fragments(ptrdiff_t userStride) const;
};

// Emits the pulse loop: `pulse0` adds pulse 0's steps (user buffers at offset 0, counts of
// plan.perPulse elements, channels at their stage bases, scratch at ring slot 0). With
// more than one pulse they become the schedule's fragment template run as `p` says;
// one pulse is plain steps (the compiled fast path takes those); none emits nothing.
template <class EmitPulse>
void emitPulses(ScheduleBuilder& b, const PulsePlan& plan, FragmentPipeline p, EmitPulse pulse0) {
    if (plan.pulses == 0) return;
    if (plan.pulses == 1) return pulse0();
    b.beginFragment();
    pulse0();
    b.endFragment(std::move(p));
}

// Whether a reduction follows the decomposition: the plan says so unless it is Flat
// (Selection.cpp runs non-commutative ops over non-contiguous groups flat: rank order).
inline bool reduceHierarchically(const hier::Plan& plan) { return plan.mode != hier::Plan::Mode::Flat; }

class PulsedReduce {
public:
    // Stages use channels stageChannel(firstStage + i), i < stageCount(). `selection`: the
    // trees of every stage (null: binomial trees, flat or level by level as `hierarchical` says).
    // `belowLeaders`: stop at the leaders (the leader space is offloaded; allreduce).
    PulsedReduce(ScheduleBuilder& b, const CollCall& c, int root, bool hierarchical, uint32_t firstStage,
                 const PulsePlan& plan, const hier::Plan* selection = nullptr, bool belowLeaders = false);
    uint32_t stageCount() const { return stageCount_; }
    const std::string& name() const { return name_; }

    // Pulse `pulse` of the reduction: `input` is this rank's contribution (pulse-sized,
    // type.count elements). The root's product lands in *out, or (out == nullptr) stays in
    // this object's scratch until the pulse's window slot is reused. `gate`: steps that
    // must finish before this pulse may reuse its scratch (the pulse kPulseWindow earlier;
    // none in a fragment template, whose window keeps that order).
    OrderedTreeReduce::Result emitPulse(size_t pulse, BufRef input, StepId inputReady, TypeRef type,
                                            const BufRef* out, const Deps& gate, const Deps& outFree);

    // Broadcast a pulse from the root down the same spaces (allreduce): receives wait for `gate`.
    Emitted emitBcast(size_t pulse, BufRef buf, TypeRef type, StepId have, const Deps& gate,
                      uint32_t firstStage);

    // Marks the scratch rings in a fragment pipeline (one slot per pulse in flight).
    void addScratchRings(FragmentPipeline& p) const;

private:
    struct Stage {
        Group group;
        int rootIdx = 0;
        uint32_t channel = 0;
        OrderedTreeReduce tree;
        std::shared_ptr<const MemberTree> whole;  // the hierarchical tree (Whole plans)
        std::vector<BufRef> scratch;  // [i]: a ring of slots_ slots of slotBytes_
    };
    ScheduleBuilder& b_;
    const CollCall& c_;
    std::vector<Stage> stages_;  // innermost first; a stage with group.me < 0 is skipped
    uint32_t stageCount_ = 1;
    size_t slots_ = 1, slotBytes_ = 0;
    std::string name_;
};

// Input of this rank for a reduction: rbuf when MPI_IN_PLACE, else sbuf.
// The intercommunicator reductions' common half (reduce, allreduce): this group's
// contributions reduced pulse by pulse to its local rank 0 (in local rank order, over the
// local communicator: no MPI_IN_PLACE there), which sends each pulse's product to remote
// rank `peer` on `channel`. Then `more(red, t)` adds the rest of the pulse (t: its type),
// with the builder on the local communicator.
template <class More>
void reduceToRemote(ScheduleBuilder& b, const CollCall& c, const PulsePlan& plan, int peer, uint32_t channel,
                    More more) {
    CollCall local = c;
    local.inter = false;
    local.args.in_place = 0;
    b.setLocalComm(true);
    PulsedReduce red(b, local, 0, false, 0, plan);
    FragmentPipeline frags = plan.fragments(static_cast<ptrdiff_t>(plan.perPulse) * c.rtype.extent);
    red.addScratchRings(frags);
    const TypeRef t{kRecvType, plan.perPulse};
    emitPulses(b, plan, std::move(frags), [&] {
        auto r = red.emitPulse(0, BufRef{kSendBuf, 0}, kNoStep, t, nullptr, {}, {});
        if (c.rank == 0) {
            b.setLocalComm(false);
            b.send(peer, r.at, t, r.ready, channel);
            b.setLocalComm(true);
        }
        more(red, t);
    });
}

inline BufRef reductionInput(const CollCall& c) { return {c.args.in_place ? kRecvBuf : kSendBuf, 0}; }

}  // namespace hieragg::recipes
