#include "ReductionPulses.hpp"

#include <algorithm>

#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/SpaceGroup.hpp"
#include "hieragg/hier/WholeTree.hpp"

namespace hieragg::recipes {

PulsePlan PulsePlan::of(const CollCall& c, size_t count) {
    PulsePlan p;
    p.count = count;
    if (count == 0) return p;
    const size_t elem = c.rtype.size;
    p.perPulse = elem == 0 ? count : std::max<size_t>(1, c.segmentBytes / elem);
    p.perPulse = std::min(p.perPulse, count);
    p.pulses = (count + p.perPulse - 1) / p.perPulse;
    return p;
}

FragmentPipeline PulsePlan::fragments(ptrdiff_t userStride) const {
    FragmentPipeline p = FragmentPipeline::of(count, std::max<size_t>(perPulse, 1), kPulseWindow);
    p.setStride(kSendBuf, userStride, false);
    p.setStride(kRecvBuf, userStride, false);
    return p;
}

PulsedReduce::PulsedReduce(ScheduleBuilder& b, const CollCall& c, int root, bool hierarchical,
                           uint32_t firstStage, const PulsePlan& plan, const hier::Plan* selection,
                           bool belowLeaders)
    : b_(b), c_(c) {
    const bool rankOrder = !c.args.op_commutative;
    auto treeOf = [&](size_t stage) {
        OrderedTreeReduce t;
        t.rankOrder = rankOrder;
        if (selection && stage < selection->stages.size() && selection->stages[stage].algo)
            t.shape = selection->stages[stage].shape;
        return t;
    };
    auto shapeName = [](const OrderedTreeReduce& t) {
        return t.shape.name() + (t.shape.kind == TreeShape::Kind::Chain ? "" : "(k=" + std::to_string(t.shape.k) + ")");
    };
    const char* order = rankOrder ? "ordered-" : "";
    if (selection && selection->mode == hier::Plan::Mode::Whole) {
        // One minimum-height tree over every level (commutative ops only: registry needs).
        Stage s;
        s.group = Group::whole(c.size, c.rank);
        s.rootIdx = root;
        s.channel = stageChannel(firstStage);
        s.tree = treeOf(0);
        s.whole = std::make_shared<const MemberTree>(hier::wholePlanTree(c, selection->stages.at(0), root, &name_));
        s.tree.tree = s.whole.get();
        stages_.push_back(std::move(s));
    } else if (!hierarchical) {
        Stage s;
        s.group = Group::whole(c.size, c.rank);
        s.rootIdx = root;
        s.channel = stageChannel(firstStage);
        s.tree = treeOf(0);
        name_ = std::string("flat-") + order + shapeName(s.tree);
        stages_.push_back(std::move(s));
    } else {
        const hier::Hierarchy& h = *c.hierarchy;
        stageCount_ = static_cast<uint32_t>(h.levels() + 1);
        name_ = std::string("hier-") + order;
        for (int level = 0; level <= h.levels() - (belowLeaders ? 1 : 0); ++level) {
            hier::SpaceGroup sg = hier::spaceGroup(h, level, c.rank, root);
            Stage s;
            s.group = std::move(sg.group);
            s.rootIdx = sg.rootIdx;
            s.channel = stageChannel(firstStage + static_cast<uint32_t>(level));
            s.tree = treeOf(static_cast<size_t>(level));
            name_ += (level ? "," : "") + shapeName(s.tree);
            stages_.push_back(std::move(s));
        }
    }
    slotBytes_ = CollCall::span(c.rtype, plan.perPulse);
    slots_ = std::min(kPulseWindow, std::max<size_t>(plan.pulses, 1));
    for (Stage& s : stages_) {
        const int need = s.group.me < 0 ? 0 : s.tree.scratchCount(s.group, s.rootIdx);
        for (int i = 0; i < need; ++i) s.scratch.push_back(b.temp(slotBytes_ * slots_, CollCall::bias(c.rtype)));
    }
}

void PulsedReduce::addScratchRings(FragmentPipeline& p) const {
    for (const Stage& s : stages_)
        for (const BufRef& r : s.scratch) p.setStride(r.slot, static_cast<ptrdiff_t>(slotBytes_), true);
}

OrderedTreeReduce::Result PulsedReduce::emitPulse(size_t pulse, BufRef input, StepId inputReady,
                                                      TypeRef type, const BufRef* out, const Deps& gate,
                                                      const Deps& outFree) {
    OrderedTreeReduce::Result r;
    r.at = input;
    r.ready = inputReady;
    Deps done{inputReady};
    bool delivered = false;
    for (size_t i = 0; i < stages_.size(); ++i) {
        Stage& s = stages_[i];
        if (s.group.me < 0) break;  // my product left at the previous stage
        if (s.group.size() <= 1) continue;
        const bool last = i + 1 == stages_.size() || stages_[i + 1].group.me < 0;
        OrderedTreeReduce::Pulse p;
        p.input = r.at;
        p.inputReady = r.ready;
        p.type = type;
        const auto slot = static_cast<ptrdiff_t>((pulse % slots_) * slotBytes_);
        for (const BufRef& r : s.scratch) p.scratch.push_back(r.at(slot));
        p.scratchFree = gate;
        if (last && s.group.me == s.rootIdx) {
            p.out = out;
            p.outFree = outFree;
            delivered = out != nullptr;
        }
        p.channel = segmentChannel(s.channel, pulse);
        OrderedTreeReduce::Result sr = s.tree.emit(b_, s.group, s.rootIdx, p);
        done.add(sr.done);
        if (s.group.me != s.rootIdx) {
            r.ready = kNoStep;  // not a root of this space: nothing further on this rank
            r.done = b_.join(done);
            return r;
        }
        r.at = sr.at;
        r.ready = sr.ready;
    }
    if (out && !delivered && (out->slot != r.at.slot || out->offset != r.at.offset)) {
        Deps d = outFree;
        d.add(r.ready);
        d.add(gate);
        r.ready = b_.copy(r.at, type, *out, type, d);
        r.at = *out;
    }
    done.add(r.ready);
    r.done = b_.join(done);
    return r;
}

Emitted PulsedReduce::emitBcast(size_t pulse, BufRef buf, TypeRef type, StepId have, const Deps& gate,
                                uint32_t firstStage) {
    Emitted e{have, have};
    Deps done{have};
    for (size_t i = stages_.size(); i-- > 0;) {
        const Stage& s = stages_[i];
        if (s.group.me < 0 || s.group.size() <= 1) continue;
        const uint32_t ch = segmentChannel(stageChannel(firstStage + static_cast<uint32_t>(i)), pulse);
        const MemberTree owned = s.whole ? MemberTree{} : s.tree.shape.build(s.group.size(), s.rootIdx);
        Emitted st = TreeBcast{s.whole ? *s.whole : owned}.emit(b_, s.group, buf, type, 0, e.ready, gate, ch);
        e.ready = st.ready;
        done.add(st.done);
    }
    e.done = b_.join(done);
    return e;
}

}  // namespace hieragg::recipes
