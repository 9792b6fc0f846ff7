// Allgather (all-to-all of the first kind, SPEC 3.1): flat, a ring straight in
// recvbuf; over a decomposition, gather to the outermost leaders, ring among
// the leaders, broadcast down (DataMovement.hpp: emitHierAllgather), so only
// leaders talk across subspaces. Intercommunicators: every rank exchanges its
// block with every remote rank, in a rotated order to spread the load.
#include "DataMovement.hpp"
#include "GatheredBlocks.hpp"
#include "InterLinear.hpp"
#include "hieragg/algorithms/RingAllgather.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule allgather(const CollCall& c) {
    const auto& a = c.args;
    if (c.inter) {
        const ptrdiff_t rblock = static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent;
        return interExchange(
            c, [&](int peer) { return Block{{kRecvBuf, peer * rblock}, {kRecvType, a.rcount}}; },
            [&](int) { return Block{{kSendBuf, 0}, {kSendType, a.scount}}; });
    }
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
