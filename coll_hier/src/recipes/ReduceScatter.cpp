// reduce_scatter (ReduceScatterPulses.hpp), or a flat ring without a root for commutative
// ops when the model prefers it; zero rcounts are simply owners of nothing.
#include <algorithm>
#include <array>
#include <numeric>

#include "LeaderRingReduceScatter.hpp"
#include "ReduceScatterPulses.hpp"
#include "ReductionPulses.hpp"
#include "hieragg/Group.hpp"
#include "hieragg/algorithms/RingReduceScatter.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

namespace {
// Rank 0's part of one pulse: send each owner the slice of [first, first+count) in its
// block (copy its own); owners receive into their rbuf. Returns my steps.
Deps scatterPulse(ScheduleBuilder& b, const CollCall& c, size_t first, size_t count, BufRef at, StepId ready,
                  const std::vector<size_t>& counts, const std::vector<size_t>& displs, const Deps& outFree,
                  uint32_t channel) {
    Deps done;
    const ptrdiff_t ext = c.rtype.extent;
    for (size_t j = 0; j < counts.size(); ++j) {
        const size_t lo = std::max(first, displs[j]), hi = std::min(first + count, displs[j] + counts[j]);
        if (lo >= hi) continue;
        const TypeRef t{kRecvType, hi - lo};
        const BufRef src = at.at(static_cast<ptrdiff_t>(lo - first) * ext);
        const BufRef dst{kRecvBuf, static_cast<ptrdiff_t>(lo - displs[j]) * ext};
        const int owner = static_cast<int>(j);
        if (c.rank == 0 && owner == 0) {
            if (src.slot != dst.slot || src.offset != dst.offset) {
                Deps d = outFree;
                d.add(ready);
                done.add(b.copy(src, t, dst, t, d));
            }
        } else if (c.rank == 0) {
            done.add(b.send(owner, src, t, ready, channel));
        } else if (c.rank == owner) {
            done.add(b.recv(0, dst, t, outFree, channel));
        }
    }
    return done;
}
// Flat ring without a root (registry row `ring`, commutative ops): pulse p carries piece p
// (segment-sized) of every block; each block's partial travels the ring once and ends on
// its owner, reduced in a fixed order along the ring. Scratch: two pieces per window slot.
// MPI_IN_PLACE (which MPI requires of every rank alike here) keeps reduce + scatter: the
// owner's output overlaps inputs the ring still has to send.
Schedule ringReduceScatter(const CollCall& c, const std::vector<size_t>& counts, const std::vector<size_t>& displs) {
    ScheduleBuilder b("ring-reduce-scatter");
    const size_t most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
    if (most == 0) return b.finish();
    const size_t piece = std::max<size_t>(1, std::min(most, PulsePlan::of(c, most).perPulse));
    const size_t pulses = (most + piece - 1) / piece;
    const ptrdiff_t ext = c.rtype.extent;
    const Group g = Group::whole(c.size, c.rank);
    std::vector<std::array<BufRef, 2>> scratch;
    for (size_t w = 0; w < std::min(kPulseWindow, pulses); ++w)
        scratch.push_back({b.temp(CollCall::span(c.rtype, piece), CollCall::bias(c.rtype)),
                           b.temp(CollCall::span(c.rtype, piece), CollCall::bias(c.rtype))});
    std::vector<StepId> pulseDone;
    for (size_t p = 0; p < pulses; ++p) {
        Deps gate;
        if (p >= kPulseWindow) gate.add(pulseDone[p - kPulseWindow]);
        const size_t lo = p * piece;
        std::vector<Block> input;
        for (size_t j = 0; j < counts.size(); ++j) {
            const size_t n = counts[j] > lo ? std::min(piece, counts[j] - lo) : 0;
            input.push_back({BufRef{kSendBuf, static_cast<ptrdiff_t>(displs[j] + (n ? lo : 0)) * ext}, {kRecvType, n}});
        }
        const Block out{BufRef{kRecvBuf, static_cast<ptrdiff_t>(lo) * ext}, input[c.rank].type};
        const Emitted e = RingReduceScatter{}.emitToOutput(b, g, input, out, scratch[p % scratch.size()].data(),
                                                           b.join(gate), {}, segmentChannel(stageChannel(1), p));
        pulseDone.push_back(b.join({b.join(gate), e.done}));
    }
    return b.finish();
}

bool ringPlan(const hier::Plan& plan) {
    return plan.stages.size() == 1 && plan.stages[0].algo && plan.stages[0].algo->emitter == hier::Emitter::Ring;
}
bool leaderRingPlan(const hier::Plan& plan) {
    return plan.stages.size() == 1 && plan.stages[0].algo && plan.stages[0].algo->emitter == hier::Emitter::LeaderRing;
}
}  // namespace

Schedule reduceThenScatter(const CollCall& c, const std::vector<size_t>& counts, size_t sendTotal) {
    const auto& a = c.args;
    ScheduleBuilder b;
    std::vector<size_t> displs(counts.size(), 0);
    for (size_t j = 1; j < counts.size(); ++j) displs[j] = displs[j - 1] + counts[j - 1];
    const size_t recvTotal = std::accumulate(counts.begin(), counts.end(), size_t{0});

    if (c.inter) {
        // Local reduce of this group's vectors to local rank 0, which trades products with the
        // remote rank 0 and scatters the remote group's product inside this group.
        b.appendAlgorithm("inter-reduce-exchange-scatter");
        CollCall local = c;
        local.inter = false;
        local.args.in_place = 0;
        b.setLocalComm(true);
        const PulsePlan sendPlan = PulsePlan::of(c, sendTotal);
        PulsedReduce red(b, local, 0, false, 0, sendPlan);
        const uint32_t exchangeStage = 1, scatterStage = 2;
        std::vector<StepId> pulseDone;
        for (size_t p = 0; p < sendPlan.pulses; ++p) {
            Deps gate;
            if (p >= kPulseWindow) gate.add(pulseDone[p - kPulseWindow]);
            const ptrdiff_t off = static_cast<ptrdiff_t>(sendPlan.first(p)) * c.rtype.extent;
            const TypeRef t{kRecvType, sendPlan.countOf(p)};
            auto r = red.emitPulse(p, BufRef{kSendBuf, off}, b.join(gate), t, nullptr, gate, {});
            Deps done{r.done};
            if (c.rank == 0) {
                b.setLocalComm(false);
                done.add(b.send(0, r.at, t, r.ready, segmentChannel(stageChannel(exchangeStage), p)));
                b.setLocalComm(true);
            }
            pulseDone.push_back(b.join(done));
        }
        const PulsePlan recvPlan = PulsePlan::of(c, recvTotal);
        const size_t slots = std::min(kPulseWindow, recvPlan.pulses);
        std::vector<BufRef> landing;
        if (c.rank == 0)
            for (size_t s = 0; s < slots; ++s)
                landing.push_back(b.temp(CollCall::span(c.rtype, recvPlan.perPulse), CollCall::bias(c.rtype)));
        std::vector<StepId> recvDone;
        for (size_t p = 0; p < recvPlan.pulses; ++p) {
            Deps gate;
            if (p >= kPulseWindow) gate.add(recvDone[p - kPulseWindow]);
            const TypeRef t{kRecvType, recvPlan.countOf(p)};
            StepId got = kNoStep;
            BufRef at{kRecvBuf, 0};
            if (c.rank == 0) {
                at = landing[p % slots];
                b.setLocalComm(false);
                got = b.recv(0, at, t, gate, segmentChannel(stageChannel(exchangeStage), p));
                b.setLocalComm(true);
            }
            Deps done = scatterPulse(b, c, recvPlan.first(p), t.count, at, got, counts, displs, gate,
                                     segmentChannel(stageChannel(scatterStage), p));
            done.add(got);
            recvDone.push_back(b.join(done));
        }
        return b.finish();
    }

    const std::shared_ptr<const hier::Plan> sel = hier::planOf(c);
    if (!a.in_place && ringPlan(*sel)) return ringReduceScatter(c, counts, displs);
    if (leaderRingPlan(*sel) && c.hierarchy && !c.hierarchy->isTrivial()) return leaderRingReduceScatter(c, counts, displs);
    const PulsePlan plan = PulsePlan::of(c, recvTotal);
    const bool hierarchical = reduceHierarchically(*sel);
    PulsedReduce red(b, c, 0, hierarchical, 0, plan, sel.get());
    b.appendAlgorithm(red.name() + "+scatter");
    const BufRef input = reductionInput(c);
    std::vector<StepId> pulseDone;
    Deps contributed;  // in place: rbuf's input must be consumed before results overwrite it
    for (size_t p = 0; p < plan.pulses; ++p) {
        Deps gate;
        if (p >= kPulseWindow) gate.add(pulseDone[p - kPulseWindow]);
        const ptrdiff_t off = static_cast<ptrdiff_t>(plan.first(p)) * c.rtype.extent;
        const TypeRef t{kRecvType, plan.countOf(p)};
        auto r = red.emitPulse(p, input.at(off), kNoStep, t, nullptr, gate, {});
        Deps outFree;
        if (a.in_place) {
            contributed = Deps{b.join({b.join(contributed), r.done})};
            outFree = contributed;
        }
        Deps done = scatterPulse(b, c, plan.first(p), t.count, r.at, r.ready, counts, displs, outFree,
                                 segmentChannel(stageChannel(red.stageCount()), p));
        done.add(r.done);
        pulseDone.push_back(b.join(done));
    }
    return b.finish();
}

Schedule reduceScatter(const CollCall& c) {
    const int n = c.size;
    std::vector<size_t> counts(n);
    for (int j = 0; j < n; ++j) counts[j] = c.args.rcounts ? static_cast<size_t>(c.args.rcounts[j]) : 0;
    // MPI: every group's input vector is as long as the sum of its own recvcounts.
    const size_t total = std::accumulate(counts.begin(), counts.end(), size_t{0});
    return reduceThenScatter(c, counts, total);
}

}  // namespace hieragg::recipes
