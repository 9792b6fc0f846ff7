// reduce_scatter (ReduceScatterPulses.hpp), or a flat ring without a root for commutative
// ops when the model prefers it; zero rcounts are simply owners of nothing.
#include <algorithm>
#include <array>
#include <numeric>

#include "LeaderRingReduceScatter.hpp"
#include "ReduceScatterPulses.hpp"
#include "ReductionPulses.hpp"
#include "hieragg/Group.hpp"
#include "hieragg/algorithms/ButterflyAllreduce.hpp"
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
}  // namespace

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

// Recursive halving (registry row `recursive_halving`, commutative ops, short vectors), as
// tuned runs it: ranks fold to the largest power of two p2 (the odd one of each of the first
// 2r = 2(n - p2) pairs hands its vector to the even one and gets its block back at the end),
// then in round d each keeps the half of its range of blocks that holds its own and trades
// the other half with the partner at distance d. No root: where reduce + scatter has rank 0
// take n - 1 messages in sequence and then send n - 1, each rank here takes at most one per
// round, and a message whose blocks are all empty is not sent (IMB's 8-byte call on 4 ranks
// gives ranks 2 and 3 nothing: they send once and are done). In place the input is rbuf,
// read by the first copy before anything writes it.
Schedule halvingReduceScatter(const CollCall& c, const std::vector<size_t>& counts, const std::vector<size_t>& displs,
                              size_t total) {
    ScheduleBuilder b("recursive-halving-reduce-scatter");
    const int n = c.size, me = c.rank;
    if (total == 0) return b.finish();
    const int p2 = butterflyCore(n), r = n - p2;
    const ptrdiff_t ext = c.rtype.extent;
    const uint32_t foldCh = stageChannel(1), xchCh = foldCh + 1, backCh = foldCh + 2;
    const TypeRef whole{kRecvType, total};
    const BufRef out{kRecvBuf, 0};
    if (me < 2 * r && me % 2 == 1) {  // folded: my vector to the even partner, my block back
        const StepId sent = b.send(me - 1, reductionInput(c), whole, kNoStep, foldCh);
        if (counts[me] > 0) b.recv(me - 1, out, {kRecvType, counts[me]}, sent, backCh);
        return b.finish();
    }
    // Virtual rank v is real rank realOf(v) and owns real ranks [realOf(v), realOf(v + 1)):
    // consecutive blocks.
    auto realOf = [r](int v) { return v < r ? 2 * v : v + r; };
    auto firstElem = [&](int v) { return v >= p2 ? total : displs[realOf(v)]; };
    auto typed = [&](int lo, int hi) { return TypeRef{kRecvType, firstElem(hi) - firstElem(lo)}; };
    auto region = [&](BufRef at, int lo) { return at.at(static_cast<ptrdiff_t>(firstElem(lo)) * ext); };
    const BufRef acc = b.temp(CollCall::span(c.rtype, total), CollCall::bias(c.rtype));
    const BufRef scratch = b.temp(CollCall::span(c.rtype, total), CollCall::bias(c.rtype));
    StepId have = b.copy(reductionInput(c), whole, acc, whole);
    Deps all{have};
    if (me < 2 * r) {  // the odd partner's whole vector
        const StepId got = b.recv(me + 1, scratch, whole, kNoStep, foldCh);
        have = b.reduce(scratch, acc, whole, Deps{got, have});
        all.add(have);
    }
    const int v = me < 2 * r ? me / 2 : me - r;
    int lo = 0, hi = p2;
    for (int d = p2 / 2; d >= 1; d /= 2) {
        const int peer = realOf(v ^ d), mid = lo + (hi - lo) / 2;
        const int keepLo = (v & d) ? mid : lo, keepHi = (v & d) ? hi : mid;
        const int sendLo = (v & d) ? lo : mid, sendHi = (v & d) ? mid : hi;
        const TypeRef sendT = typed(sendLo, sendHi), keepT = typed(keepLo, keepHi);
        if (sendT.count > 0) all.add(b.send(peer, region(acc, sendLo), sendT, have, xchCh));
        if (keepT.count > 0) {
            // The scratch is free again once the previous round's reduce has read it.
            const StepId got = b.recv(peer, region(scratch, keepLo), keepT, have, xchCh);
            have = b.reduce(region(scratch, keepLo), region(acc, keepLo), keepT, Deps{got, have});
            all.add(have);
        }
        lo = keepLo, hi = keepHi;
    }
    // My block (and the folded partner's, which follows it) are reduced in acc.
    if (me < 2 * r && counts[me + 1] > 0) {
        const TypeRef t{kRecvType, counts[me + 1]};
        all.add(b.send(me + 1, acc.at(static_cast<ptrdiff_t>(displs[me + 1]) * ext), t, have, backCh));
    }
    if (counts[me] > 0) {
        const TypeRef t{kRecvType, counts[me]};
        // In place, rbuf's input was read by the first copy (a dependency of every step).
        b.copy(acc.at(static_cast<ptrdiff_t>(displs[me]) * ext), t, out, t, Deps{have, b.join(all)});
    }
    return b.finish();
}

ResultBlocks resultBlocksOf(const CollCall& c) {
    ResultBlocks x;
    const size_t n = static_cast<size_t>(c.size);
    if (c.args.kind == HIERAGG_REDUCE_SCATTER_BLOCK)
        x.counts.assign(n, c.args.rcount);
    else
        for (size_t j = 0; j < n; ++j) x.counts.push_back(c.args.rcounts ? static_cast<size_t>(c.args.rcounts[j]) : 0);
    x.displs.assign(n, 0);
    for (size_t j = 1; j < n; ++j) x.displs[j] = x.displs[j - 1] + x.counts[j - 1];
    x.total = std::accumulate(x.counts.begin(), x.counts.end(), size_t{0});
    return x;
}

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
    if (auto built = builtByRow(c, *sel)) return std::move(*built);
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
