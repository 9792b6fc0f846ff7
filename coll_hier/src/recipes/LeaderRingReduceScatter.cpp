#include "LeaderRingReduceScatter.hpp"

#include <algorithm>

#include "ReductionPulses.hpp"
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/RingReduceScatter.hpp"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::recipes {

Schedule leaderRingReduceScatter(const CollCall& c, const std::vector<size_t>& counts,
                                 const std::vector<size_t>& displs) {
    ScheduleBuilder b("leader-ring-reduce-scatter");
    const hier::Hierarchy& h = *c.hierarchy;
    const int n = c.size, top = h.levels() - 1, G = h.groupCount(top), mine = h.groupOf(top, c.rank);
    const size_t most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
    if (most == 0) return b.finish();

    // Pulse layout: groups ascending, members ascending inside each.
    std::vector<int> leaders;
    size_t widest = 1;
    for (int g = 0; g < G; ++g) {
        leaders.push_back(h.groupMembers(top, g).front());
        widest = std::max(widest, h.groupMembers(top, g).size());
    }
    // A node block (what crosses between leaders) is about one segment.
    const size_t elem = std::max<size_t>(1, c.rtype.size);
    const size_t piece = std::min(most, std::max<size_t>(1, c.segmentBytes / elem / widest));
    const size_t pulses = (most + piece - 1) / piece;
    auto lenOf = [&](int r, size_t p) {
        const size_t lo = p * piece;
        return counts[r] > lo ? std::min(piece, counts[r] - lo) : size_t{0};
    };
    size_t longest = 0, widestBlock = 0;  // pulse 0 is the longest pulse
    for (int g = 0; g < G; ++g) {
        size_t blk = 0;
        for (int r : h.groupMembers(top, g)) blk += lenOf(r, 0);
        longest += blk;
        widestBlock = std::max(widestBlock, blk);
    }

    const ptrdiff_t ext = c.rtype.extent;
    const bool inPlace = c.args.in_place != 0;
    const BufRef input{inPlace ? kRecvBuf : kSendBuf, 0};
    const bool isLeader = c.rank == leaders[mine];
    Group ring;
    ring.ranks = leaders;
    ring.me = isLeader ? mine : -1;

    PulsePlan plan;  // sizes the per-level trees' scratch: one pulse vector per child
    plan.perPulse = longest;
    plan.pulses = pulses;
    plan.count = longest * pulses;
    // Binomial trees level by level up to the outermost leaders (root 0: every group's
    // leader is its lowest rank); commutative ops only (registry need).
    PulsedReduce red(b, c, 0, true, 0, plan, nullptr, true);
    const uint32_t ringStage = red.stageCount(), scatterStage = red.stageCount() + 1;

    const size_t slots = std::min(kPulseWindow, pulses);
    std::vector<BufRef> pack, ringScratch;
    for (size_t s = 0; s < slots; ++s) {
        pack.push_back(b.temp(CollCall::span(c.rtype, longest), CollCall::bias(c.rtype)));
        if (isLeader && G > 1 && widestBlock > 0)
            ringScratch.push_back(b.temp(CollCall::span(c.rtype, widestBlock), CollCall::bias(c.rtype)));
    }

    std::vector<StepId> pulseDone;
    Deps contributed;  // in place: packs of pulses <= p, before pulse p's output lands in rbuf
    std::vector<size_t> offOf(n, 0), groupOff(G + 1, 0);
    for (size_t p = 0; p < pulses; ++p) {
        Deps gate;
        if (p >= kPulseWindow) gate.add(pulseDone[p - kPulseWindow]);
        const StepId free = b.join(gate);
        const size_t slot = p % slots, lo = p * piece;

        // 1. Pack my contribution; pieces adjacent in the input go in one copy.
        Deps copies;
        size_t off = 0, runSrc = 0, runDst = 0, runLen = 0;
        auto flush = [&] {
            if (runLen == 0) return;
            const TypeRef t{kRecvType, runLen};
            copies.add(b.copy(input.at(static_cast<ptrdiff_t>(runSrc) * ext), t,
                              pack[slot].at(static_cast<ptrdiff_t>(runDst) * ext), t, free));
            runLen = 0;
        };
        for (int g = 0; g < G; ++g) {
            groupOff[g] = off;
            for (int r : h.groupMembers(top, g)) {
                const size_t len = lenOf(r, p);
                offOf[r] = off;
                if (len == 0) continue;
                const size_t src = displs[r] + lo;
                if (runLen > 0 && runSrc + runLen == src && runDst + runLen == off) {
                    runLen += len;
                } else {
                    flush();
                    runSrc = src, runDst = off, runLen = len;
                }
                off += len;
            }
        }
        flush();
        groupOff[G] = off;
        const StepId packed = b.join(copies);
        Deps outFree;
        if (inPlace) {
            contributed = Deps{b.join({b.join(contributed), packed})};
            outFree = contributed;
        }

        // 2. Reduce the pulse vector to my outermost leader.
        const OrderedTreeReduce::Result r =
            red.emitPulse(p, pack[slot], packed, TypeRef{kRecvType, off}, nullptr, gate, {});
        Deps done{free, packed, r.done};
        const int leader = leaders[mine];
        const uint32_t scatterChannel = segmentChannel(stageChannel(scatterStage), p);
        if (isLeader) {
            // 3. Node blocks around the leaders' ring: my block ends with every group's total.
            StepId ready = r.ready;
            if (G > 1) {
                std::vector<Block> blocks;
                for (int g = 0; g < G; ++g)
                    blocks.push_back({r.at.at(static_cast<ptrdiff_t>(groupOff[g]) * ext),
                                      {kRecvType, groupOff[g + 1] - groupOff[g]}});
                const BufRef scratch = ringScratch.empty() ? r.at : ringScratch[slot];
                const Emitted e = RingReduceScatter{}.emit(b, ring, blocks, scratch, r.ready,
                                                           segmentChannel(stageChannel(ringStage), p));
                ready = e.ready;
                done.add(e.done);
            }
            // 4. Every member's piece straight into its rbuf.
            for (int m : h.groupMembers(top, mine)) {
                const size_t len = lenOf(m, p);
                if (len == 0) continue;
                const TypeRef t{kRecvType, len};
                const BufRef src = r.at.at(static_cast<ptrdiff_t>(offOf[m]) * ext);
                if (m == c.rank) {
                    Deps d = outFree;
                    d.add(ready);
                    done.add(b.copy(src, t, BufRef{kRecvBuf, static_cast<ptrdiff_t>(lo) * ext}, t, d));
                } else {
                    done.add(b.send(m, src, t, ready, scatterChannel));
                }
            }
        } else if (lenOf(c.rank, p) > 0) {
            done.add(b.recv(leader, BufRef{kRecvBuf, static_cast<ptrdiff_t>(lo) * ext},
                            TypeRef{kRecvType, lenOf(c.rank, p)}, outFree, scatterChannel));
        }
        pulseDone.push_back(b.join(done));
    }
    return b.finish();
}

}  // namespace hieragg::recipes
