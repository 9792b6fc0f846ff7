// Allgather (all-to-all of the first kind, SPEC 3.1): flat, a ring straight in
// recvbuf; over a decomposition, gather to the outermost leaders, ring among
// the leaders, broadcast down (DataMovement.hpp: emitHierAllgather), so only
// leaders talk across subspaces. Intercommunicators: every rank exchanges its
// block with every remote rank, in a rotated order to spread the load.
#include "DataMovement.hpp"
#include "GatheredBlocks.hpp"
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
    const GatheredBlocks blocks{c};
    dm::Levels lv(c);
    // Ring over everyone or through the leaders: the plan's choice (the exchange units, algorithms/).
    const std::shared_ptr<const hier::Plan> plan = hier::planOf(c);
    if (plan->mode == hier::Plan::Mode::Flat) lv.flat = true;
    // Rows of their own composition: Bruck and recursive doubling flat, the leaders' rings.
    if (auto built = builtByRow(c, *plan)) return std::move(*built);
    if (lv.flat) {
        ScheduleBuilder b("flat-ring");
        if (a.rcount * c.rtype.size == 0) return b.finish();
        RingAllgather{}.emit(b, Group::whole(c.size, c.rank), blocks.all(), blocks.placeMine(b), 0);
        return b.finish();
    }
    ScheduleBuilder b("hier-gather+ring+bcast");
    const std::vector<size_t> rankBytes(static_cast<size_t>(c.size), a.rcount * c.rtype.size);
    dm::emitHierAllgather(
        b, lv, rankBytes, blocks.mine(), a.in_place != 0, [&](int r) { return blocks.of(r); },
        [](int x, int y) { return y == x + 1; }, c.segmentBytes);
    return b.finish();
}

}  // namespace hieragg::recipes
