// Gatherv. Flat linear: every rank sends straight into the root's recvbuf at its
// displacement. Hierarchical, in two stages (TwoStage.hpp): recvcounts are known only
// at the root, so the members of every group but the root's first tell their leader
// their block's size; then each leader packs its members' blocks (up to the limit)
// into one message to the root, which unpacks them at their displacements. Blocks
// above the limit, and the root's own group, go straight to the root.
#include "DataMovement.hpp"
#include "hieragg/algorithms/LinearGather.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg::recipes {

namespace {
// Channels of the data stage: direct to the root, leader to root, member to leader.
constexpr uint32_t kDirect = stageChannel(0), kToRoot = stageChannel(1), kToLeader = stageChannel(2);
}  // namespace

Schedule gatherv(const CollCall& c) {
    if (c.varStage == 1) return sizeStage(c);
    if (c.varStage == 2) return gathervThroughLeaders(c);
    const auto& a = c.args;
    ScheduleBuilder b(c.inter ? "inter-linear" : "flat-linear");
    auto rootBlock = [&](int r) {
        return Block{{kRecvBuf, a.rdispls[r] * c.rtype.extent}, {kRecvType, static_cast<size_t>(a.rcounts[r])}};
    };
    const Block mine{{kSendBuf, 0}, {kSendType, a.scount}};
    if (c.inter) {
        if (a.root == HIERAGG_ROOT) {
            for (int r = 0; r < c.remoteSize; ++r) b.recv(r, rootBlock(r).buf, rootBlock(r).type, {}, 0);
        } else if (a.root >= 0) {
            b.send(a.root, mine.buf, mine.type, {}, 0);
        }
        return b.finish();
    }
    std::vector<Block> blocks;
    if (c.rank == a.root) {
        for (int r = 0; r < c.size; ++r) blocks.push_back(rootBlock(r));
        if (!a.in_place) b.copy(mine.buf, mine.type, blocks[a.root].buf, blocks[a.root].type);
    }
    LinearGather{}.emit(b, Group::whole(c.size, c.rank), a.root, blocks, mine, kNoStep, 0);
    return b.finish();
}

Schedule gathervThroughLeaders(const CollCall& c) {
    const auto& a = c.args;
    const hier::Hierarchy& h = *c.hierarchy;
    const int level = aggregationLevel(c);
    const size_t limit = leaderBlockLimit(c);
    const int rootGroup = h.groupOf(level, a.root);
    const int myGroup = h.groupOf(level, c.rank);
    ScheduleBuilder b("hierarchical(limit=" + std::to_string(limit) + ")");
    const Block mine{{kSendBuf, 0}, {kSendType, a.scount}};
    const size_t myBytes = a.scount * c.stype.size;

    if (c.rank == a.root) {
        std::vector<size_t> bytes(c.size);
        for (int r = 0; r < c.size; ++r) bytes[r] = static_cast<size_t>(a.rcounts[r]) * c.rtype.size;
        auto rootBlock = [&](int r) {
            return Block{{kRecvBuf, a.rdispls[r] * c.rtype.extent}, {kRecvType, static_cast<size_t>(a.rcounts[r])}};
        };
        auto adjacent = [&](int x, int y) { return a.rdispls[y] == a.rdispls[x] + a.rcounts[x]; };
        if (!a.in_place && bytes[a.root] > 0) b.copy(mine.buf, mine.type, rootBlock(a.root).buf, rootBlock(a.root).type);
        // One packed temporary holds every group's aggregate, side by side.
        const RootRoutes routes = rootRoutes(h, level, a.root, bytes, limit);
        BufRef all = routes.total ? b.temp(routes.total) : BufRef{};
        size_t at = 0;
        for (const RootGroupRoute& g : routes.groups) {
            for (int r : g.direct) b.recv(r, rootBlock(r).buf, rootBlock(r).type, {}, kDirect);
            if (g.bytes == 0) continue;
            const BufRef seg = all.at(static_cast<ptrdiff_t>(at));
            const StepId got = b.recv(g.leader, seg, {kPackedType, g.bytes}, {}, kToRoot);
            dm::copyRuns(b, g.through, -1, bytes, seg, rootBlock, adjacent, true, got);
            at += g.bytes;
        }
        return b.finish();
    }
    if (myBytes == 0 && myGroup == rootGroup) return b.finish();
    const bool alone = h.groupMembers(level, myGroup).size() == 1;
    if (myGroup == rootGroup || myBytes > limit || alone) {
        if (myBytes > 0) b.send(a.root, mine.buf, mine.type, {}, kDirect);
        if (myGroup == rootGroup || alone) return b.finish();
    }
    const std::vector<int>& members = h.groupMembers(level, myGroup);
    const int leader = members.front();
    if (c.rank != leader) {
        if (myBytes > 0 && myBytes <= limit) b.send(leader, mine.buf, mine.type, {}, kToLeader);
        return b.finish();
    }
    // Leader: its members' sizes came from stage 1 (slot i = member i), its own from sbuf.
    std::vector<size_t> sizes(members.size());
    size_t sum = 0;
    for (size_t i = 0; i < members.size(); ++i) {
        sizes[i] = i == 0 ? myBytes : static_cast<size_t>(c.learnedBytes[i]);
        if (sizes[i] <= limit) sum += sizes[i];
    }
    if (sum == 0) return b.finish();
    const BufRef agg = b.temp(sum);
    Deps in;
    size_t at = 0;
    for (size_t i = 0; i < members.size(); ++i) {
        if (sizes[i] == 0 || sizes[i] > limit) continue;
        const BufRef slot = agg.at(static_cast<ptrdiff_t>(at));
        if (i == 0)
            in.add(b.copy(mine.buf, mine.type, slot, {kPackedType, sizes[i]}));
        else
            in.add(b.recv(members[i], slot, {kPackedType, sizes[i]}, {}, kToLeader));
        at += sizes[i];
    }
    b.send(a.root, agg, {kPackedType, sum}, in, kToRoot);
    return b.finish();
}

}  // namespace hieragg::recipes
