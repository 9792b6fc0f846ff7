// Allgatherv: every rank knows every count, so it runs like allgather: flat, a
// ring straight in recvbuf, or a row of its own composition (Bruck, recursive doubling;
// blocks at their displacements, any order), as allgather's model says for the mean
// block; over a
// decomposition, the hierarchical gather + leader ring + packed broadcast with
// per-rank block sizes, unpacked at the displacements (never touching gaps).
#include "DataMovement.hpp"
#include "GatheredBlocks.hpp"
#include "InterLinear.hpp"
#include "LeaderRingAllgather.hpp"
#include "MultiLeaderAllgather.hpp"
#include "hieragg/algorithms/RingAllgather.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule allgatherv(const CollCall& c) {
    const auto& a = c.args;
    if (c.inter)
        return interExchange(
            c,
            [&](int peer) {
                return Block{{kRecvBuf, a.rdispls[peer] * c.rtype.extent},
                             {kRecvType, static_cast<size_t>(a.rcounts[peer])}};
            },
            [&](int) { return Block{{kSendBuf, 0}, {kSendType, a.scount}}; });
    const GatheredBlocks blocks{c};
    auto blockOf = [&](int r) { return blocks.of(r); };
    auto adjacent = [&](int x, int y) { return blocks.adjacent(x, y); };
    dm::Levels lv(c);
    const hier::AlgorithmInfo* forced = hier::forcedAlgorithm(c);
    // Flat or through the leaders, and which flat row: allgather's model for the mean block
    // (allgatherv's exchange units, algorithms/allgather/). Through the leaders, which row
    // follows the layout of the blocks (below).
    const std::shared_ptr<const hier::Plan> plan = hier::planOf(c);
    const hier::AlgorithmInfo* flatRow = forced && (forced->serves & hier::kServesFlat) ? forced
                                         : !forced && plan->mode == hier::Plan::Mode::Flat ? plan->stages[0].algo
                                                                                            : nullptr;
    // A flat row of its own composition (Bruck, recursive doubling) builds the call; else the ring.
    if (flatRow && flatRow->build)
        if (auto built = flatRow->build(c, *plan)) return std::move(*built);
    if (flatRow || lv.flat) {
        ScheduleBuilder b("flat-ring");
        RingAllgather{}.emit(b, Group::whole(c.size, c.rank), blocks.all(), blocks.placeMine(b), 0);
        return b.finish();
    }
    // Through the leaders: the forced row, or (auto) multi-leader when its needs hold (nodes
    // of equal size) and the blocks are long: every member then sends its own share across
    // the network at once, instead of one leader per node sending the whole node block
    // (docs/selection.md). Else the leaders' ring without staging when every group's blocks
    // form one run in rbuf: then it moves the same messages as the staged path, without the
    // packed copy on every rank, and broadcasts each group as it arrives. Also when the runs
    // are long (round robin, large blocks): its segments are then as large as the staged
    // path's, and no rank stages the whole result.
    const hier::AlgorithmInfo* through = forced;
    if (!forced) {
        const hier::AlgorithmInfo* multi = hier::algorithmByName(a.kind, "multileader");
        if (multi && hier::unmetNeed(*multi, c).empty() && multiLeaderPays(c, blockOf))
            through = multi;
        else if (oneRunPerGroup(c, adjacent) || segmentLongRuns(c, blockOf, adjacent))
            through = hier::algorithmByName(a.kind, "leader_ring");
    }
    if (through && through->build)
        if (auto built = through->build(c, *plan)) return std::move(*built);
    ScheduleBuilder b("hier-gather+ring+bcast");
    std::vector<size_t> rankBytes(static_cast<size_t>(c.size));
    for (int r = 0; r < c.size; ++r) rankBytes[r] = static_cast<size_t>(a.rcounts[r]) * c.rtype.size;
    dm::emitHierAllgather(b, lv, rankBytes, blocks.mine(), a.in_place != 0, blockOf, adjacent, c.segmentBytes);
    return b.finish();
}

}  // namespace hieragg::recipes
