// The vector runs as pulses (at most kPulseWindow in flight per rank, scratch reused
// round-robin), each cut so that the pieces every message carries are about one
// coll_hieragg_segment_size: temporary memory is O(segment x window) for ring and
// multi-leader, O(members x segment x window) for the butterflies, whatever the count.
//
// Multi-leader (hierarchical): with G outermost groups (nodes) of at least S members,
// a pulse is cut into S slices; inside each group a ring reduce-scatter leaves slice j
// on member j; member j of every group allreduces slice j with its peers of the other
// groups (ring or Rabenseifner, the row says), so S flows share each node's link and
// every byte crosses it 2(G - 1)/G times; a ring allgather inside the group returns
// the slices. Members past S own empty blocks (uneven groups; a group of one makes
// S = 1: one leader per node).
#include "SliceAllreduce.hpp"

#include <algorithm>

#include "ReductionPulses.hpp"
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/ButterflyAllreduce.hpp"
#include "hieragg/algorithms/RingAllgather.hpp"
#include "hieragg/algorithms/RingReduceScatter.hpp"
#include "hieragg/algorithms/VectorBlocks.hpp"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::recipes {

namespace {
// Channels of window slot w, 2 stages (512) apart so that kPulseWindow (8) slots stay
// within the runtime's 4096 channels per call: a ring reduce-scatter (1 channel), the
// butterfly (3), a ring allgather (a channel per step, wrapping at 256). The node's inner
// ring and the column's ring talk to disjoint peers (my node's members, other nodes'
// ranks), so they share channels.
struct Stages {
    uint32_t innerRs, innerAg, ringRs, ringAg, butterfly;
    static Stages of(size_t slot) {
        const uint32_t base = stageChannel(2 * static_cast<uint32_t>(slot));
        return {base, base + 4, base, base + 4, base + 1};
    }
};

std::vector<Block> blocksOf(BufRef acc, const VectorBlocks& vb, size_t members, ptrdiff_t extent) {
    std::vector<Block> out;
    for (size_t j = 0; j < members; ++j) {
        const size_t n = j < vb.k ? vb.size(j) : 0;
        const size_t at = j < vb.k ? vb.first(j) : 0;
        out.push_back({acc.at(static_cast<ptrdiff_t>(at) * extent), {kRecvType, n}});
    }
    return out;
}

// Ring allreduce of `count` elements at acc over g: reduce-scatter, then allgather.
Emitted ringAllreduce(ScheduleBuilder& b, const Group& g, BufRef acc, size_t count, ptrdiff_t extent, BufRef scratch,
                      StepId after, const Stages& st) {
    const VectorBlocks vb{count, static_cast<size_t>(std::max(1, g.size()))};
    const std::vector<Block> blocks = blocksOf(acc, vb, vb.k, extent);
    const Emitted rs = RingReduceScatter{}.emit(b, g, blocks, scratch, after, st.ringRs);
    const Emitted ag = RingAllgather{}.emit(b, g, blocks, rs.ready, st.ringAg, rs.done);
    return {ag.ready, b.join({rs.done, ag.done})};
}

Emitted butterfly(ScheduleBuilder& b, ButterflyAllreduce::Kind kind, const Group& g, BufRef acc, size_t count,
                  ptrdiff_t extent, BufRef scratch, StepId after, const Stages& st) {
    ButterflyAllreduce f;
    f.kind = kind;
    return f.emit(b, g, acc, kRecvType, count, extent, scratch, after, st.butterfly);
}

struct Shape {
    SliceKind kind;
    Group whole;                 // flat rows
    Group inner, column;         // multi-leader: my outermost group, my slice's peers (me < 0: none)
    size_t slices = 1;           // S
    size_t factor = 1;           // segments per pulse
};

Shape shapeOf(const CollCall& c, SliceKind e) {
    Shape s;
    s.kind = e;
    s.whole = Group::whole(c.size, c.rank);
    if (e == SliceKind::MultiLeaderRing || e == SliceKind::MultiLeaderRabenseifner) {
        const hier::Hierarchy& h = *c.hierarchy;
        const int top = h.levels() - 1;
        const int groups = h.groupCount(top);
        size_t S = static_cast<size_t>(c.size);
        for (int g = 0; g < groups; ++g) S = std::min(S, h.groupMembers(top, g).size());
        const int mine = h.groupOf(top, c.rank);
        s.inner.ranks = h.groupMembers(top, mine);
        s.inner.me = s.inner.indexOf(c.rank);
        if (s.inner.me < static_cast<int>(S)) {
            for (int g = 0; g < groups; ++g) s.column.ranks.push_back(h.groupMembers(top, g)[s.inner.me]);
            s.column.me = mine;
        }
        s.slices = S;
        s.factor = S;
    } else if (e == SliceKind::Ring) {
        s.factor = static_cast<size_t>(c.size);
    } else if (e == SliceKind::Rabenseifner) {
        s.factor = static_cast<size_t>(butterflyCore(c.size));
    }
    return s;
}

size_t scratchElements(const Shape& s, size_t pulse) {
    switch (s.kind) {
    case SliceKind::Ring: return VectorBlocks{pulse, s.factor}.largest();
    case SliceKind::Rabenseifner:
        return ButterflyAllreduce{ButterflyAllreduce::Kind::Rabenseifner}.scratchElements(s.whole.size(), pulse);
    case SliceKind::MultiLeaderRing: case SliceKind::MultiLeaderRabenseifner: {
        const size_t slice = VectorBlocks{pulse, s.slices}.largest();
        const size_t col = s.kind == SliceKind::MultiLeaderRing
                               ? VectorBlocks{slice, static_cast<size_t>(std::max(1, s.column.size()))}.largest()
                               : ButterflyAllreduce{}.scratchElements(s.column.size(), slice);
        return std::max(slice, col);
    }
    default: return ButterflyAllreduce{ButterflyAllreduce::Kind::RecursiveDoubling}.scratchElements(s.whole.size(), pulse);
    }
}

Emitted emitPulse(ScheduleBuilder& b, const Shape& s, BufRef acc, size_t count, ptrdiff_t extent, BufRef scratch,
                  StepId after, const Stages& st) {
    switch (s.kind) {
    case SliceKind::Ring: return ringAllreduce(b, s.whole, acc, count, extent, scratch, after, st);
    case SliceKind::Rabenseifner:
        return butterfly(b, ButterflyAllreduce::Kind::Rabenseifner, s.whole, acc, count, extent, scratch, after, st);
    case SliceKind::MultiLeaderRing: case SliceKind::MultiLeaderRabenseifner: {
        const VectorBlocks vb{count, s.slices};
        const std::vector<Block> blocks = blocksOf(acc, vb, s.inner.ranks.size(), extent);
        const Emitted rs = RingReduceScatter{}.emit(b, s.inner, blocks, scratch, after, st.innerRs);
        Emitted col{rs.ready, rs.ready};
        if (s.column.me >= 0 && s.column.size() > 1) {
            const Block& mine = blocks[s.inner.me];
            col = s.kind == SliceKind::MultiLeaderRing
                      ? ringAllreduce(b, s.column, mine.buf, mine.type.count, extent, scratch, rs.ready, st)
                      : butterfly(b, ButterflyAllreduce::Kind::Rabenseifner, s.column, mine.buf, mine.type.count,
                                  extent, scratch, rs.ready, st);
        }
        const Emitted ag = RingAllgather{}.emit(b, s.inner, blocks, col.ready, st.innerAg, b.join({rs.done, col.done}));
        return {ag.ready, b.join({rs.done, col.done, ag.done})};
    }
    default:
        return butterfly(b, ButterflyAllreduce::Kind::RecursiveDoubling, s.whole, acc, count, extent, scratch, after,
                         st);
    }
}

const char* nameOf(SliceKind e) {
    switch (e) {
    case SliceKind::Ring: return "ring-reduce-scatter+ring-allgather";
    case SliceKind::Rabenseifner: return "rabenseifner";
    case SliceKind::MultiLeaderRing: return "multileader(ring-rs+ring+ring-ag)";
    case SliceKind::MultiLeaderRabenseifner: return "multileader(ring-rs+rabenseifner+ring-ag)";
    default: return "recursive-doubling";
    }
}
}  // namespace

Schedule sliceAllreduce(const CollCall& c, SliceKind kind) {
    const auto& a = c.args;
    const Shape s = shapeOf(c, kind);
    ScheduleBuilder b(nameOf(s.kind));
    const size_t count = a.rcount;
    if (count == 0) return b.finish();
    const ptrdiff_t ext = c.rtype.extent;
    const size_t segment = PulsePlan::of(c, count).perPulse;
    const size_t perPulse = std::min(count, segment * s.factor);
    const size_t pulses = (count + perPulse - 1) / perPulse;
    const size_t slots = std::min(kPulseWindow, pulses);
    std::vector<BufRef> scratch;
    const size_t scratchElems = scratchElements(s, perPulse);
    for (size_t w = 0; w < slots; ++w)
        scratch.push_back(b.temp(CollCall::span(c.rtype, scratchElems), CollCall::bias(c.rtype)));
    std::vector<StepId> pulseDone;
    for (size_t p = 0; p < pulses; ++p) {
        Deps gate;
        if (p >= kPulseWindow) gate.add(pulseDone[p - kPulseWindow]);
        const size_t first = p * perPulse, n = std::min(perPulse, count - first);
        const BufRef acc{kRecvBuf, static_cast<ptrdiff_t>(first) * ext};
        StepId have = b.join(gate);
        if (!a.in_place) {
            const TypeRef t{kRecvType, n};
            have = b.copy(BufRef{kSendBuf, static_cast<ptrdiff_t>(first) * ext}, t, acc, t, gate);
        }
        const Emitted e = emitPulse(b, s, acc, n, ext, scratch.empty() ? BufRef{} : scratch[p % slots], have,
                                    Stages::of(p % kPulseWindow));
        pulseDone.push_back(b.join({have, e.done}));
    }
    return b.finish();
}

}  // namespace hieragg::recipes
