#include "RootedVector.hpp"

#include "DataMovement.hpp"
#include "InterLinear.hpp"
#include "hieragg/algorithms/LinearGather.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg::recipes {

namespace {
// Channels of the data stage: root and owner directly, root and leader, leader and member.
constexpr uint32_t kDirect = stageChannel(0), kRootLeader = stageChannel(1), kLeaderMember = stageChannel(2);

Block rootBlockOf(const RootedVector& v, int r) {
    return Block{{v.rootBuf, v.rootDispls[r] * v.rootType->extent},
                 {v.rootTypeSlot, static_cast<size_t>(v.rootCounts[r])}};
}

// The root's own block between its two buffers, the way the data goes.
StepId moveOwn(ScheduleBuilder& b, const RootedVector& v, const Block& mine, const Block& atRoot,
               const Deps& deps = {}) {
    return v.toRoot ? b.copy(mine.buf, mine.type, atRoot.buf, atRoot.type, deps)
                    : b.copy(atRoot.buf, atRoot.type, mine.buf, mine.type, deps);
}
}  // namespace

RootedVector RootedVector::gatherv(const CollCall& c) {
    const auto& a = c.args;
    return {true, a.rcounts, a.rdispls, &c.rtype, kRecvBuf, kRecvType, kSendBuf, kSendType, a.scount,
            a.scount * c.stype.size};
}

RootedVector RootedVector::scatterv(const CollCall& c) {
    const auto& a = c.args;
    // In place, the root's rbuf is absent (its block stays in sbuf).
    return {false, a.scounts, a.sdispls, &c.stype, kSendBuf, kSendType, kRecvBuf, kRecvType, a.rcount,
            a.rbuf ? a.rcount * c.rtype.size : 0};
}

Schedule rootedVectorFlat(const CollCall& c, const RootedVector& v) {
    const auto& a = c.args;
    const Block mine{{v.mineBuf, 0}, {v.mineTypeSlot, v.mineCount}};
    if (c.inter) return interRooted(c, v.toRoot, [&](int r) { return rootBlockOf(v, r); }, mine);
    ScheduleBuilder b("flat-linear");
    std::vector<Block> blocks;
    if (c.rank == a.root) {
        for (int r = 0; r < c.size; ++r) blocks.push_back(rootBlockOf(v, r));
        if (!a.in_place) moveOwn(b, v, mine, blocks[a.root]);
    }
    const Group all = Group::whole(c.size, c.rank);
    if (v.toRoot)
        LinearGather{}.emit(b, all, a.root, blocks, mine, kNoStep, 0);
    else
        LinearScatter{}.emit(b, all, a.root, blocks, mine, kNoStep, 0);
    return b.finish();
}

Schedule rootedVectorThroughLeaders(const CollCall& c, const RootedVector& v) {
    const auto& a = c.args;
    const hier::Hierarchy& h = *c.hierarchy;
    const int level = aggregationLevel(c);
    const size_t limit = leaderBlockLimit(c);
    const int rootGroup = h.groupOf(level, a.root);
    const int myGroup = h.groupOf(level, c.rank);
    ScheduleBuilder b("hierarchical(limit=" + std::to_string(limit) + ")");
    const Block mine{{v.mineBuf, 0}, {v.mineTypeSlot, v.mineCount}};

    if (c.rank == a.root) {
        std::vector<size_t> bytes(c.size);
        for (int r = 0; r < c.size; ++r) bytes[r] = static_cast<size_t>(v.rootCounts[r]) * v.rootType->size;
        auto rootBlock = [&](int r) { return rootBlockOf(v, r); };
        auto adjacent = [&](int x, int y) { return v.rootDispls[y] == v.rootDispls[x] + v.rootCounts[x]; };
        if (!a.in_place) moveOwn(b, v, mine, rootBlock(a.root));
        // One packed temporary holds every group's aggregate, side by side.
        const RootRoutes routes = rootRoutes(h, level, a.root, bytes, limit);
        BufRef all = routes.total ? b.temp(routes.total) : BufRef{};
        size_t at = 0;
        for (const RootGroupRoute& g : routes.groups) {
            for (int r : g.direct) b.transfer(!v.toRoot, r, rootBlock(r).buf, rootBlock(r).type, {}, kDirect);
            if (g.bytes == 0) continue;
            const BufRef seg = all.at(static_cast<ptrdiff_t>(at));
            if (v.toRoot) {
                const StepId got = b.recv(g.leader, seg, {kPackedType, g.bytes}, {}, kRootLeader);
                dm::copyRuns(b, g.through, -1, bytes, seg, rootBlock, adjacent, true, got);
            } else {
                const Deps packed = dm::copyRuns(b, g.through, -1, bytes, seg, rootBlock, adjacent, false, {});
                b.send(g.leader, seg, {kPackedType, g.bytes}, packed, kRootLeader);
            }
            at += g.bytes;
        }
        return b.finish();
    }
    const bool alone = h.groupMembers(level, myGroup).size() == 1;
    if (myGroup == rootGroup || v.myBytes > limit || alone) {
        if (v.myBytes > 0) b.transfer(v.toRoot, a.root, mine.buf, mine.type, {}, kDirect);
        if (myGroup == rootGroup || alone) return b.finish();
    }
    const std::vector<int>& members = h.groupMembers(level, myGroup);
    const int leader = members.front();
    if (c.rank != leader) {
        if (v.myBytes > 0 && v.myBytes <= limit) b.transfer(v.toRoot, leader, mine.buf, mine.type, {}, kLeaderMember);
        return b.finish();
    }
    // Leader: its members' sizes came from stage 1 (slot i = member i), its own is myBytes.
    std::vector<size_t> sizes(members.size());
    size_t sum = 0;
    for (size_t i = 0; i < members.size(); ++i) {
        sizes[i] = i == 0 ? v.myBytes : static_cast<size_t>(c.learnedBytes[i]);
        if (sizes[i] <= limit) sum += sizes[i];
    }
    if (sum == 0) return b.finish();
    const BufRef agg = b.temp(sum);
    // Scatterv: the group's blocks arrive from the root first; gatherv: they leave last.
    const StepId got = v.toRoot ? kNoStep : b.recv(a.root, agg, {kPackedType, sum}, {}, kRootLeader);
    Deps moved;
    size_t at = 0;
    for (size_t i = 0; i < members.size(); ++i) {
        if (sizes[i] == 0 || sizes[i] > limit) continue;
        const Block slot{agg.at(static_cast<ptrdiff_t>(at)), {kPackedType, sizes[i]}};
        if (i == 0)
            moved.add(moveOwn(b, v, mine, slot, got));
        else
            moved.add(b.transfer(!v.toRoot, members[i], slot.buf, slot.type, got, kLeaderMember));
        at += sizes[i];
    }
    if (v.toRoot) b.send(a.root, agg, {kPackedType, sum}, moved, kRootLeader);
    return b.finish();
}

// Gatherv. Flat linear: every rank sends straight into the root's recvbuf at its
// displacement. Hierarchical, in two stages (TwoStage.hpp): recvcounts are known only
// at the root, so the members of every group but the root's first tell their leader
// their block's size; then each leader packs its members' blocks (up to the limit)
// into one message to the root, which unpacks them at their displacements. Blocks
// above the limit, and the root's own group, go straight to the root.
Schedule gatherv(const CollCall& c) {
    if (c.varStage == 1) return sizeStage(c);
    if (c.varStage == 2) return gathervThroughLeaders(c);
    return rootedVectorFlat(c, RootedVector::gatherv(c));
}

Schedule gathervThroughLeaders(const CollCall& c) { return rootedVectorThroughLeaders(c, RootedVector::gatherv(c)); }

// Scatterv. Flat linear: the root sends every block straight from its displacement
// into the owner's recvbuf. Hierarchical, in two stages (TwoStage.hpp): sendcounts are
// known only at the root, so the members of every group but the root's first tell
// their leader their block's size (each knows its own recvcount); then the root packs
// each group's blocks (up to the limit) into one message to its leader, which hands
// every member its part. Blocks above the limit, and the root's own group, come
// straight from the root.
Schedule scatterv(const CollCall& c) {
    if (c.varStage == 1) return sizeStage(c);
    if (c.varStage == 2) return scattervThroughLeaders(c);
    return rootedVectorFlat(c, RootedVector::scatterv(c));
}

Schedule scattervThroughLeaders(const CollCall& c) { return rootedVectorThroughLeaders(c, RootedVector::scatterv(c)); }

}  // namespace hieragg::recipes
