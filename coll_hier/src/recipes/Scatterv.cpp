// Scatterv. Flat linear: the root sends every block straight from its displacement
// into the owner's recvbuf. Hierarchical, in two stages (TwoStage.hpp): sendcounts are
// known only at the root, so the members of every group but the root's first tell
// their leader their block's size (each knows its own recvcount); then the root packs
// each group's blocks (up to the limit) into one message to its leader, which hands
// every member its part. Blocks above the limit, and the root's own group, come
// straight from the root.
#include "DataMovement.hpp"
#include "hieragg/algorithms/LinearGather.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg::recipes {

namespace {
// Channels of the data stage: direct from the root, root to leader, leader to member.
constexpr uint32_t kDirect = stageChannel(0), kToLeader = stageChannel(1), kToMember = stageChannel(2);
}  // namespace

Schedule scatterv(const CollCall& c) {
    if (c.varStage == 1) return sizeStage(c);
    if (c.varStage == 2) return scattervThroughLeaders(c);
    const auto& a = c.args;
    ScheduleBuilder b(c.inter ? "inter-linear" : "flat-linear");
    auto rootBlock = [&](int r) {
        return Block{{kSendBuf, a.sdispls[r] * c.stype.extent}, {kSendType, static_cast<size_t>(a.scounts[r])}};
    };
    const Block mine{{kRecvBuf, 0}, {kRecvType, a.rcount}};
    if (c.inter) {
        if (a.root == HIERAGG_ROOT) {
            for (int r = 0; r < c.remoteSize; ++r) b.send(r, rootBlock(r).buf, rootBlock(r).type, {}, 0);
        } else if (a.root >= 0) {
            b.recv(a.root, mine.buf, mine.type, {}, 0);
        }
        return b.finish();
    }
    std::vector<Block> blocks;
    if (c.rank == a.root) {
        for (int r = 0; r < c.size; ++r) blocks.push_back(rootBlock(r));
        if (!a.in_place) b.copy(blocks[a.root].buf, blocks[a.root].type, mine.buf, mine.type);
    }
    LinearScatter{}.emit(b, Group::whole(c.size, c.rank), a.root, blocks, mine, kNoStep, 0);
    return b.finish();
}

Schedule scattervThroughLeaders(const CollCall& c) {
    const auto& a = c.args;
    const hier::Hierarchy& h = *c.hierarchy;
    const int level = aggregationLevel(c);
    const size_t limit = leaderBlockLimit(c);
    const int rootGroup = h.groupOf(level, a.root);
    const int myGroup = h.groupOf(level, c.rank);
    ScheduleBuilder b("hierarchical(limit=" + std::to_string(limit) + ")");
    const Block mine{{kRecvBuf, 0}, {kRecvType, a.rcount}};
    // In place, the root's rbuf is absent (its block stays in sbuf).
    const size_t myBytes = a.rbuf ? a.rcount * c.rtype.size : 0;

    if (c.rank == a.root) {
        std::vector<size_t> bytes(c.size);
        for (int r = 0; r < c.size; ++r) bytes[r] = static_cast<size_t>(a.scounts[r]) * c.stype.size;
        auto rootBlock = [&](int r) {
            return Block{{kSendBuf, a.sdispls[r] * c.stype.extent}, {kSendType, static_cast<size_t>(a.scounts[r])}};
        };
        auto adjacent = [&](int x, int y) { return a.sdispls[y] == a.sdispls[x] + a.scounts[x]; };
        if (a.rbuf && myBytes > 0) b.copy(rootBlock(a.root).buf, rootBlock(a.root).type, mine.buf, mine.type);
        const RootRoutes routes = rootRoutes(h, level, a.root, bytes, limit);
        BufRef all = routes.total ? b.temp(routes.total) : BufRef{};
        size_t at = 0;
        for (const RootGroupRoute& g : routes.groups) {
            for (int r : g.direct) b.send(r, rootBlock(r).buf, rootBlock(r).type, {}, kDirect);
            if (g.bytes == 0) continue;
            const BufRef seg = all.at(static_cast<ptrdiff_t>(at));
            const Deps packed = dm::copyRuns(b, g.through, -1, bytes, seg, rootBlock, adjacent, false, {});
            b.send(g.leader, seg, {kPackedType, g.bytes}, packed, kToLeader);
            at += g.bytes;
        }
        return b.finish();
    }
    const bool alone = h.groupMembers(level, myGroup).size() == 1;
    if (myGroup == rootGroup || myBytes > limit || alone) {
        if (myBytes > 0) b.recv(a.root, mine.buf, mine.type, {}, kDirect);
        if (myGroup == rootGroup || alone) return b.finish();
    }
    const std::vector<int>& members = h.groupMembers(level, myGroup);
    const int leader = members.front();
    if (c.rank != leader) {
        if (myBytes > 0 && myBytes <= limit) b.recv(leader, mine.buf, mine.type, {}, kToMember);
        return b.finish();
    }
    std::vector<size_t> sizes(members.size());
    size_t sum = 0;
    for (size_t i = 0; i < members.size(); ++i) {
        sizes[i] = i == 0 ? myBytes : static_cast<size_t>(c.learnedBytes[i]);
        if (sizes[i] <= limit) sum += sizes[i];
    }
    if (sum == 0) return b.finish();
    const BufRef agg = b.temp(sum);
    const StepId got = b.recv(a.root, agg, {kPackedType, sum}, {}, kToLeader);
    size_t at = 0;
    for (size_t i = 0; i < members.size(); ++i) {
        if (sizes[i] == 0 || sizes[i] > limit) continue;
        const BufRef slot = agg.at(static_cast<ptrdiff_t>(at));
        if (i == 0)
            b.copy(slot, {kPackedType, sizes[i]}, mine.buf, mine.type, got);
        else
            b.send(members[i], slot, {kPackedType, sizes[i]}, got, kToMember);
        at += sizes[i];
    }
    return b.finish();
}

}  // namespace hieragg::recipes
