// Allgatherv: every rank knows every count, so it runs like allgather: flat, a
// ring or Bruck's log2 p steps straight in recvbuf (blocks at their displacements, any
// order), as allgather's model says for the mean block; over a
// decomposition, the hierarchical gather + leader ring + packed broadcast with
// per-rank block sizes, unpacked at the displacements (never touching gaps).
#include "DataMovement.hpp"
#include "LeaderRingAllgather.hpp"
#include "MultiLeaderAllgather.hpp"
#include "hieragg/algorithms/BruckAllgatherv.hpp"
#include "hieragg/algorithms/RingAllgather.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

namespace {
Schedule interAllgatherv(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b("inter-linear");
    const int m = c.remoteSize;
    for (int s = 0; s < m; ++s) {
        const int peer = (c.rank + s) % m;
        b.recv(peer, {kRecvBuf, a.rdispls[peer] * c.rtype.extent},
               {kRecvType, static_cast<size_t>(a.rcounts[peer])}, {}, 0);
        b.send(peer, {kSendBuf, 0}, {kSendType, a.scount}, {}, 0);
    }
    return b.finish();
}
}  // namespace

Schedule allgatherv(const CollCall& c) {
    if (c.inter) return interAllgatherv(c);
    const auto& a = c.args;
    auto blockOf = [&](int r) {
        return Block{{kRecvBuf, a.rdispls[r] * c.rtype.extent}, {kRecvType, static_cast<size_t>(a.rcounts[r])}};
    };
    const Block mine = a.in_place ? blockOf(c.rank) : Block{{kSendBuf, 0}, {kSendType, a.scount}};
    dm::Levels lv(c);
    const hier::AlgorithmInfo* forced = hier::forcedAlgorithm(c);
    auto adjacent = [&](int x, int y) { return y == x + 1 && a.rdispls[y] == a.rdispls[x] + a.rcounts[x]; };
    // Flat or through the leaders, and which flat row: allgather's model for the mean block
    // (allgatherv's exchange units, algorithms/allgather/). Through the leaders, which row
    // follows the layout of the blocks (below).
    const std::shared_ptr<const hier::Plan> plan = hier::planOf(c);
    const hier::AlgorithmInfo* flatRow = forced && (forced->serves & hier::kServesFlat) ? forced
                                         : !forced && plan->mode == hier::Plan::Mode::Flat ? plan->stages[0].algo
                                                                                            : nullptr;
    if (flatRow || lv.flat) {
        const bool bruck = flatRow && flatRow->emitter == hier::Emitter::Bruck;
        ScheduleBuilder b(bruck ? "flat-bruck" : "flat-ring");
        StepId own = a.in_place ? kNoStep : b.copy(mine.buf, mine.type, blockOf(c.rank).buf, blockOf(c.rank).type);
        std::vector<Block> blocks;
        for (int r = 0; r < c.size; ++r) blocks.push_back(blockOf(r));
        if (bruck)
            BruckAllgatherv{}.emit(b, Group::whole(c.size, c.rank), blocks, adjacent, own, 0);
        else
            RingAllgather{}.emit(b, Group::whole(c.size, c.rank), blocks, own, 0);
        return b.finish();
    }
    // Multi-leader when forced, or (auto) when its needs hold (nodes of equal size) and the
    // blocks are long: every member then sends its own share across the network at once,
    // instead of one leader per node sending the whole node block (docs/selection.md).
    const hier::AlgorithmInfo* multi = hier::algorithmByName(c.args.kind, "multileader");
    if ((forced && forced->emitter == hier::Emitter::MultiLeaderAllgather) ||
        (!forced && multi && hier::unmetNeed(*multi, c).empty() && multiLeaderPays(c, blockOf)))
        return multiLeaderAllgather(c, blockOf, mine);
    // The leaders' ring without staging when forced, or (auto) when every group's blocks
    // form one run in rbuf: then it moves the same messages as the staged path, without
    // the packed copy on every rank, and broadcasts each group as it arrives. Also when the
    // runs are long (round robin, large blocks): its segments are then as large as the
    // staged path's, and no rank stages the whole result.
    if ((forced && forced->emitter == hier::Emitter::LeaderRing) ||
        (!forced && (oneRunPerGroup(c, adjacent) || segmentLongRuns(c, blockOf, adjacent))))
        return leaderRingAllgather(c, blockOf, mine, adjacent);
    ScheduleBuilder b("hier-gather+ring+bcast");
    std::vector<size_t> rankBytes(static_cast<size_t>(c.size));
    for (int r = 0; r < c.size; ++r) rankBytes[r] = static_cast<size_t>(a.rcounts[r]) * c.rtype.size;
    dm::emitHierAllgather(
        b, lv, rankBytes, mine, a.in_place != 0, blockOf,
        [&](int x, int y) { return y == x + 1 && a.rdispls[y] == a.rdispls[x] + a.rcounts[x]; },
        c.segmentBytes);
    return b.finish();
}

}  // namespace hieragg::recipes
