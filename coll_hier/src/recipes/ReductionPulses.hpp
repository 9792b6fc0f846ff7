// Shared machinery of the reduction recipes: a reduction to one root runs as
// pulses of segmentBytes (SPEC 3.3) through the spaces of the decomposition,
// innermost first (SPEC 3.1), each space an OrderedTreeReduce over the tree the
// plan chose for its stage (or one minimum-height tree over the whole hierarchy,
// Selection.hpp). At most
// kPulseWindow pulses are in flight per rank, and their scratch buffers are
// reused round-robin, so temporary memory is O(segment x tree degree x window)
// whatever the message size.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Emitted.hpp"
#include "hieragg/algorithms/OrderedTreeReduce.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::recipes {

constexpr size_t kPulseWindow = 8;

// How a vector of `count` elements is cut into pulses.
struct PulsePlan {
    size_t perPulse = 0;  // elements per pulse
    size_t pulses = 0;    // 0 when count == 0
    size_t count = 0;
    static PulsePlan of(const CollCall& c, size_t count);
    size_t first(size_t p) const { return p * perPulse; }
    size_t countOf(size_t p) const { return std::min(perPulse, count - first(p)); }
};

// Whether a reduction follows the decomposition: the plan says so unless it is Flat
// (Selection.cpp runs non-commutative ops over non-contiguous groups flat: rank order).
inline bool reduceHierarchically(const hier::Plan& plan) { return plan.mode != hier::Plan::Mode::Flat; }

class PulsedReduce {
public:
    // Stages use channels stageChannel(firstStage + i), i < stageCount(). `selection`: the
    // trees of every stage (null: binomial trees, flat or level by level as `hierarchical` says).
    PulsedReduce(ScheduleBuilder& b, const CollCall& c, int root, bool hierarchical, uint32_t firstStage,
                 const PulsePlan& plan, const hier::Plan* selection = nullptr);
    uint32_t stageCount() const { return stageCount_; }
    const std::string& name() const { return name_; }

    // Pulse `pulse` of the reduction: `input` is this rank's contribution (pulse-sized,
    // type.count elements). The root's product lands in *out, or (out == nullptr) stays in
    // this object's scratch until the pulse's window slot is reused. `gate`: steps that
    // must finish before this pulse may reuse its scratch (the pulse kPulseWindow earlier).
    OrderedTreeReduce::Result emitPulse(size_t pulse, BufRef input, StepId inputReady, TypeRef type,
                                            const BufRef* out, const Deps& gate, const Deps& outFree);

    // Broadcast a pulse from the root down the same spaces (allreduce): receives wait for `gate`.
    Emitted emitBcast(size_t pulse, BufRef buf, TypeRef type, StepId have, const Deps& gate,
                      uint32_t firstStage);

private:
    struct Stage {
        Group group;
        int rootIdx = 0;
        uint32_t channel = 0;
        OrderedTreeReduce tree;
        std::shared_ptr<const MemberTree> whole;  // the hierarchical tree (Whole plans)
        std::vector<std::vector<BufRef>> scratch;  // [window slot][i]
    };
    ScheduleBuilder& b_;
    const CollCall& c_;
    std::vector<Stage> stages_;  // innermost first; a stage with group.me < 0 is skipped
    uint32_t stageCount_ = 1;
    std::string name_;
};

// Input of this rank for a reduction: rbuf when MPI_IN_PLACE, else sbuf.
inline BufRef reductionInput(const CollCall& c) { return {c.args.in_place ? kRecvBuf : kSendBuf, 0}; }

}  // namespace hieragg::recipes
