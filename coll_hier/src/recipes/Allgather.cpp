// Allgather (all-to-all of the first kind, SPEC 3.1): flat, a ring straight in
// recvbuf; over a decomposition, gather to the outermost leaders, ring among
// the leaders, broadcast down (DataMovement.hpp: emitHierAllgather), so only
// leaders talk across subspaces. Intercommunicators: every rank exchanges its
// block with every remote rank, in a rotated order to spread the load.
#include "DataMovement.hpp"
#include "LeaderRingAllgather.hpp"
#include "MultiLeaderAllgather.hpp"
#include "hieragg/algorithms/BruckAllgather.hpp"
#include "hieragg/algorithms/RecursiveDoublingAllgather.hpp"
#include "hieragg/algorithms/RingAllgather.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

namespace {
Schedule interAllgather(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b("inter-linear");
    const ptrdiff_t rblock = static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent;
    const int m = c.remoteSize;
    for (int s = 0; s < m; ++s) {
        const int peer = (c.rank + s) % m;
        b.recv(peer, {kRecvBuf, peer * rblock}, {kRecvType, a.rcount}, {}, 0);
        b.send(peer, {kSendBuf, 0}, {kSendType, a.scount}, {}, 0);
    }
    return b.finish();
}
}  // namespace

Schedule allgather(const CollCall& c) {
    if (c.inter) return interAllgather(c);
    const auto& a = c.args;
    const ptrdiff_t rblock = static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent;
    const Block mine = a.in_place ? Block{{kRecvBuf, c.rank * rblock}, {kRecvType, a.rcount}}
                                  : Block{{kSendBuf, 0}, {kSendType, a.scount}};
    dm::Levels lv(c);
    // Ring over everyone or through the leaders: the plan's choice (the exchange units, algorithms/).
    const std::shared_ptr<const hier::Plan> plan = hier::planOf(c);
    if (plan->mode == hier::Plan::Mode::Flat) lv.flat = true;
    if (!lv.flat && plan->stages[0].algo && plan->stages[0].algo->emitter == hier::Emitter::MultiLeaderAllgather) {
        if (a.rcount * c.rtype.size == 0) return ScheduleBuilder("multileader-allgather").finish();
        return multiLeaderAllgather(
            c, [&](int r) { return Block{{kRecvBuf, r * rblock}, {kRecvType, a.rcount}}; }, mine);
    }
    if (!lv.flat && plan->stages[0].algo && plan->stages[0].algo->emitter == hier::Emitter::LeaderRing) {
        if (a.rcount * c.rtype.size == 0) return ScheduleBuilder("leader-ring-allgather").finish();
        return leaderRingAllgather(
            c, [&](int r) { return Block{{kRecvBuf, r * rblock}, {kRecvType, a.rcount}}; }, mine,
            [](int x, int y) { return y == x + 1; });
    }
    if (lv.flat) {
        const hier::Emitter e = plan->stages[0].algo ? plan->stages[0].algo->emitter : hier::Emitter::Ring;
        const bool doubling = e == hier::Emitter::RecursiveDoubling;
        ScheduleBuilder b(doubling ? "flat-recursive-doubling" : e == hier::Emitter::Bruck ? "flat-bruck" : "flat-ring");
        if (a.rcount * c.rtype.size == 0) return b.finish();
        if (e == hier::Emitter::Bruck) {
            const BufRef scratch = b.temp(CollCall::span(c.rtype, a.rcount * c.size), CollCall::bias(c.rtype));
            BruckAllgather{}.emit(b, Group::whole(c.size, c.rank), mine.buf, mine.type, {kRecvBuf, 0}, kRecvType,
                                  a.rcount, rblock, scratch, kNoStep, 0);
            return b.finish();
        }
        StepId own = a.in_place ? kNoStep
                                : b.copy(mine.buf, mine.type, {kRecvBuf, c.rank * rblock}, {kRecvType, a.rcount});
        if (doubling) {
            RecursiveDoublingAllgather{}.emit(b, Group::whole(c.size, c.rank), {kRecvBuf, 0}, kRecvType, a.rcount,
                                              rblock, own, 0);
            return b.finish();
        }
        std::vector<Block> blocks;
        for (int r = 0; r < c.size; ++r) blocks.push_back({{kRecvBuf, r * rblock}, {kRecvType, a.rcount}});
        RingAllgather{}.emit(b, Group::whole(c.size, c.rank), blocks, own, 0);
        return b.finish();
    }
    ScheduleBuilder b("hier-gather+ring+bcast");
    const std::vector<size_t> rankBytes(static_cast<size_t>(c.size), a.rcount * c.rtype.size);
    dm::emitHierAllgather(
        b, lv, rankBytes, mine, a.in_place != 0,
        [&](int r) { return Block{{kRecvBuf, r * rblock}, {kRecvType, a.rcount}}; },
        [](int x, int y) { return y == x + 1; }, c.segmentBytes);
    return b.finish();
}

}  // namespace hieragg::recipes
