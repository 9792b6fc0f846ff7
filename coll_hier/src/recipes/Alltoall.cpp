// Alltoall (all-to-all of the second kind, SPEC 3.1). Flat: pairwise exchange.
// Over a decomposition (outermost groups and their lowest-rank leaders): every
// member packs the blocks leaving its group and hands them to its leader in one
// message, members exchange their group-internal blocks directly, leaders
// exchange one message per pair of groups, and each leader scatters what arrived
// (one message per member). Messages crossing groups drop from P*(P-|G|) to
// groups*(groups-1), at the price of two local transposes at each leader; the
// cost model weighs the two (the exchange units, algorithms/). In place: rbuf is first copied (packed)
// and every block leaves from that copy.
#include <algorithm>

#include "DataMovement.hpp"
#include "InterLinear.hpp"
#include "hieragg/algorithms/PairwiseAlltoall.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

namespace {

void hierAlltoall(ScheduleBuilder& b, const CollCall& c, size_t blockBytes,
                  const std::function<Block(int)>& sourceOf, const std::function<Block(int)>& targetOf,
                  StepId after) {
    const hier::Hierarchy& h = *c.hierarchy;
    const int level = h.levels() - 1;
    const int myGroup = h.groupOf(level, c.rank);
    const std::vector<int>& members = h.groupMembers(level, myGroup);
    const int leader = members.front();
    const int gsize = static_cast<int>(members.size());
    // Ranks outside my group, by group then rank; posOf[g] = first position of group g.
    std::vector<int> outside;
    std::vector<size_t> posOf(static_cast<size_t>(h.groupCount(level)), 0);
    for (int g = 0; g < h.groupCount(level); ++g) {
        posOf[g] = outside.size();
        if (g == myGroup) continue;
        for (int r : h.groupMembers(level, g)) outside.push_back(r);
    }
    const size_t out = outside.size();
    const size_t rowBytes = out * blockBytes;
    const std::vector<size_t> rankBytes(static_cast<size_t>(c.size), blockBytes);
    auto consecutive = [](int x, int y) { return y == x + 1; };
    auto bytesAt = [&](BufRef base, size_t blocks) { return base.at(static_cast<ptrdiff_t>(blocks * blockBytes)); };

    // Blocks that stay inside the group go directly.
    Group local;
    local.ranks = members;
    local.me = static_cast<int>(std::find(members.begin(), members.end(), c.rank) - members.begin());
    std::vector<Block> localSend, localRecv;
    for (int r : members) localSend.push_back(sourceOf(r)), localRecv.push_back(targetOf(r));
    PairwiseAlltoall{8}.emit(b, local, localSend, localRecv, after, stageChannel(1));
    if (out == 0) return;

    if (c.rank != leader) {
        BufRef outgoing = b.temp(rowBytes);
        StepId packed = b.join(dm::copyRuns(b, outside, -1, rankBytes, outgoing, sourceOf, consecutive, false, after));
        b.send(leader, outgoing, {kPackedType, rowBytes}, packed, stageChannel(0));
        BufRef incoming = b.temp(rowBytes);
        StepId got = b.recv(leader, incoming, {kPackedType, rowBytes}, after, stageChannel(3));
        dm::copyRuns(b, outside, -1, rankBytes, incoming, targetOf, consecutive, true, got);
        return;
    }
    // Leader. rows[i]: member i's outgoing blocks in `outside` order.
    BufRef rows = b.temp(gsize * rowBytes);
    Deps rowsReady;
    for (int i = 0; i < gsize; ++i) {
        BufRef row = rows.at(static_cast<ptrdiff_t>(i * rowBytes));
        if (members[i] == c.rank)
            rowsReady.add(dm::copyRuns(b, outside, -1, rankBytes, row, sourceOf, consecutive, false, after));
        else
            rowsReady.add(b.recv(members[i], row, {kPackedType, rowBytes}, {}, stageChannel(0)));
    }
    StepId haveRows = b.join(rowsReady);
    // To each other group H: [d in H][m in my group], one message per leader pair.
    BufRef toLeaders = b.temp(gsize * rowBytes);
    BufRef fromLeaders = b.temp(gsize * rowBytes);
    Deps arrived;
    for (int g = 0; g < h.groupCount(level); ++g) {
        if (g == myGroup) continue;
        const std::vector<int>& other = h.groupMembers(level, g);
        const size_t hsize = other.size();
        BufRef seg = bytesAt(toLeaders, posOf[g] * gsize);
        Deps transposed;
        for (size_t j = 0; j < hsize; ++j)
            for (int i = 0; i < gsize; ++i)
                transposed.add(b.copy(rows.at(static_cast<ptrdiff_t>(i * rowBytes + (posOf[g] + j) * blockBytes)),
                                      {kPackedType, blockBytes}, bytesAt(seg, j * gsize + i),
                                      {kPackedType, blockBytes}, haveRows));
        b.send(other.front(), seg, {kPackedType, hsize * gsize * blockBytes}, b.join(transposed), stageChannel(2));
        // From H: [d in my group][m in H].
        arrived.add(b.recv(other.front(), bytesAt(fromLeaders, posOf[g] * gsize),
                           {kPackedType, hsize * gsize * blockBytes}, {}, stageChannel(2)));
    }
    StepId haveAll = b.join(arrived);
    // Member j's incoming row: for each other group, its slice [j][m in H].
    BufRef toMembers = b.temp(gsize * rowBytes);
    for (int j = 0; j < gsize; ++j) {
        BufRef row = toMembers.at(static_cast<ptrdiff_t>(j * rowBytes));
        Deps built;
        for (int g = 0; g < h.groupCount(level); ++g) {
            if (g == myGroup) continue;
            const size_t hsize = h.groupMembers(level, g).size();
            built.add(b.copy(bytesAt(fromLeaders, posOf[g] * gsize + j * hsize), {kPackedType, hsize * blockBytes},
                             bytesAt(row, posOf[g]), {kPackedType, hsize * blockBytes}, haveAll));
        }
        StepId rowReady = b.join(built);
        if (members[j] == c.rank)
            dm::copyRuns(b, outside, -1, rankBytes, row, targetOf, consecutive, true, {rowReady, after});
        else
            b.send(members[j], row, {kPackedType, rowBytes}, rowReady, stageChannel(3));
    }
}
}  // namespace

Schedule alltoall(const CollCall& c) {
    const auto& a = c.args;
    const size_t blockBytes = a.rcount * c.rtype.size;
    const ptrdiff_t rblock = static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent;
    const ptrdiff_t sblock = static_cast<ptrdiff_t>(a.scount) * c.stype.extent;
    auto targetOf = [&](int r) { return Block{{kRecvBuf, r * rblock}, {kRecvType, a.rcount}}; };
    auto sentFrom = [&](int r) { return Block{{kSendBuf, r * sblock}, {kSendType, a.scount}}; };
    if (c.inter) return interExchange(c, targetOf, sentFrom);
    // Through the leaders or pairwise: the plan's choice (the exchange units, algorithms/).
    bool hierarchical = useHierarchy(c) && hier::planOf(c)->mode == hier::Plan::Mode::Whole;
    if (hierarchical) {
        const hier::Hierarchy& h = *c.hierarchy;
        hierarchical = h.groupCount(h.levels() - 1) > 1;
    }
    ScheduleBuilder b(hierarchical ? "hier-leaders" : "flat-pairwise");
    if (blockBytes == 0) return b.finish();
    StepId after = kNoStep;
    BufRef copy{};
    if (a.in_place) {
        // rbuf is both input and output: every block leaves from a packed copy.
        copy = b.temp(c.size * blockBytes);
        after = b.copy({kRecvBuf, 0}, {kRecvType, c.size * a.rcount}, copy, {kPackedType, c.size * blockBytes});
    }
    auto sourceOf = [&](int r) {
        return a.in_place ? packedBlock(copy.at(static_cast<ptrdiff_t>(r * blockBytes)), blockBytes) : sentFrom(r);
    };
    if (hierarchical) {
        hierAlltoall(b, c, blockBytes, sourceOf, targetOf, after);
        return b.finish();
    }
    std::vector<Block> sends, recvs;
    for (int r = 0; r < c.size; ++r) sends.push_back(sourceOf(r)), recvs.push_back(targetOf(r));
    PairwiseAlltoall{8}.emit(b, Group::whole(c.size, c.rank), sends, recvs, after, 0);
    return b.finish();
}

}  // namespace hieragg::recipes
