// The data stage of hierarchical alltoallv / alltoallw (TwoStage.hpp): the leader
// aggregation of alltoall (Alltoall.cpp) with a size per block. Stage 1 gave each
// leader its members' rows of outgoing and incoming byte counts, so it knows the
// size of every block it forwards, and so does the leader at the other end (its
// members' incoming rows): one message per ordered pair of groups, laid out
// [d in H][m in G], sized alike on both ends. Blocks above the limit go straight from
// owner to owner; zero-byte blocks send nothing. In place: rbuf is first copied
// (packed) and every block leaves from that copy, as in the flat exchange.
#include <algorithm>

#include "DataMovement.hpp"
#include "PeerBlocks.hpp"
#include "hieragg/algorithms/PairwiseAlltoall.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg::recipes {

namespace {
// Channels: member -> leader, inside the group, leader <-> leader, leader -> member, direct.
constexpr uint32_t kToLeader = stageChannel(0), kInside = stageChannel(1), kLeaders = stageChannel(2),
                   kToMember = stageChannel(3), kDirect = stageChannel(4);
}  // namespace

Schedule leaderPerPeerExchange(const CollCall& c, const PeerBlocks& userBlocks) {
    const hier::Hierarchy& h = *c.hierarchy;
    const int level = aggregationLevel(c);
    const size_t limit = leaderBlockLimit(c);
    const int n = c.size;
    const int myGroup = h.groupOf(level, c.rank);
    const std::vector<int>& members = h.groupMembers(level, myGroup);
    const int leader = members.front();
    const size_t gsize = members.size();
    ScheduleBuilder b("hierarchical(limit=" + std::to_string(limit) + ")");

    PeerBlocks pb = userBlocks;
    StepId after = kNoStep;
    if (c.args.in_place) {
        // rbuf is input and output: blocks leave from a packed copy of it.
        std::vector<size_t> at(n);
        size_t total = 0;
        for (int r = 0; r < n; ++r) at[r] = total, total += pb.recvBytes(r);
        const BufRef copy = total ? b.temp(total) : BufRef{};
        Deps copied;
        for (int r = 0; r < n; ++r)
            if (pb.recvBytes(r) > 0) {
                const Block blk = pb.recvOf(r);
                copied.add(b.copy(blk.buf, blk.type, copy.at(static_cast<ptrdiff_t>(at[r])),
                                  {kPackedType, pb.recvBytes(r)}));
            }
        after = b.join(copied);
        pb.sendOf = [copy, at, userBlocks](int r) {
            return packedBlock(copy.at(static_cast<ptrdiff_t>(at[r])), userBlocks.recvBytes(r));
        };
        pb.sendAdjacent = [](int, int) { return false; };
    }
    std::vector<size_t> sendBytes(n), recvBytes(n);
    for (int r = 0; r < n; ++r) sendBytes[r] = pb.sendBytes(r), recvBytes[r] = pb.recvBytes(r);

    // Inside the group: pairwise, straight between user buffers.
    Group local;
    local.ranks = members;
    local.me = static_cast<int>(std::find(members.begin(), members.end(), c.rank) - members.begin());
    std::vector<Block> localSend, localRecv;
    for (int r : members) localSend.push_back(pb.sendOf(r)), localRecv.push_back(pb.recvOf(r));
    PairwiseAlltoall{8}.emit(b, local, localSend, localRecv, after, kInside);

    // Ranks outside the group, by group then rank.
    std::vector<int> outside;
    for (int g = 0; g < h.groupCount(level); ++g)
        if (g != myGroup)
            for (int r : h.groupMembers(level, g)) outside.push_back(r);
    auto through = [&](size_t bytes) { return bytes > 0 && bytes <= limit; };
    // Large blocks go straight to their owner.
    for (int r : outside) {
        if (recvBytes[r] > limit) b.recv(r, pb.recvOf(r).buf, pb.recvOf(r).type, {}, kDirect);
        if (sendBytes[r] > limit) b.send(r, pb.sendOf(r).buf, pb.sendOf(r).type, after, kDirect);
    }
    std::vector<int> outOrder, inOrder;  // my aggregated peers, in `outside` order
    size_t outSum = 0, inSum = 0;
    for (int r : outside) {
        if (through(sendBytes[r])) outOrder.push_back(r), outSum += sendBytes[r];
        if (through(recvBytes[r])) inOrder.push_back(r), inSum += recvBytes[r];
    }

    if (c.rank != leader) {
        if (outSum > 0) {
            const BufRef outgoing = b.temp(outSum);
            const StepId packed =
                b.join(dm::copyRuns(b, outOrder, -1, sendBytes, outgoing, pb.sendOf, pb.sendAdjacent, false, after));
            b.send(leader, outgoing, {kPackedType, outSum}, packed, kToLeader);
        }
        if (inSum > 0) {
            const BufRef incoming = b.temp(inSum);
            const StepId got = b.recv(leader, incoming, {kPackedType, inSum}, after, kToMember);
            dm::copyRuns(b, inOrder, -1, recvBytes, incoming, pb.recvOf, pb.recvAdjacent, true, got);
        }
        return b.finish();
    }

    // Leader. out(i, d) / in(i, s): member i's bytes to d / from s (stage 1; mine from my args).
    const size_t words = 2 * static_cast<size_t>(n);
    auto out = [&](size_t i, int d) -> size_t {
        return i == 0 ? sendBytes[d] : static_cast<size_t>(c.learnedBytes[i * words + d]);
    };
    auto in = [&](size_t i, int s) -> size_t {
        return i == 0 ? recvBytes[s] : static_cast<size_t>(c.learnedBytes[i * words + n + s]);
    };
    // rows: member i's aggregated outgoing blocks in `outside` order; rowAt[i][k] = offset
    // of its block to outside[k].
    std::vector<std::vector<size_t>> rowAt(gsize, std::vector<size_t>(outside.size()));
    std::vector<size_t> rowBegin(gsize + 1, 0);
    for (size_t i = 0; i < gsize; ++i) {
        size_t at = rowBegin[i];
        for (size_t k = 0; k < outside.size(); ++k) {
            rowAt[i][k] = at;
            if (through(out(i, outside[k]))) at += out(i, outside[k]);
        }
        rowBegin[i + 1] = at;
    }
    const BufRef rows = rowBegin[gsize] ? b.temp(rowBegin[gsize]) : BufRef{};
    Deps rowsIn;
    for (size_t i = 0; i < gsize; ++i) {
        const size_t bytes = rowBegin[i + 1] - rowBegin[i];
        if (bytes == 0) continue;
        const BufRef row = rows.at(static_cast<ptrdiff_t>(rowBegin[i]));
        if (i == 0)
            rowsIn.add(dm::copyRuns(b, outOrder, -1, sendBytes, row, pb.sendOf, pb.sendAdjacent, false, after));
        else
            rowsIn.add(b.recv(members[i], row, {kPackedType, bytes}, {}, kToLeader));
    }
    const StepId haveRows = b.join(rowsIn);

    // Per other group H: what I send ([d in H][m in mine]) and receive ([d in mine][s in H]).
    size_t toTotal = 0, fromTotal = 0;
    struct Pair { int g; size_t to, toBytes, from, fromBytes; };
    std::vector<Pair> pairs;
    for (int g = 0; g < h.groupCount(level); ++g) {
        if (g == myGroup) continue;
        Pair p{g, toTotal, 0, fromTotal, 0};
        for (int d : h.groupMembers(level, g))
            for (size_t i = 0; i < gsize; ++i)
                if (through(out(i, d))) p.toBytes += out(i, d);
        for (size_t j = 0; j < gsize; ++j)
            for (int s : h.groupMembers(level, g))
                if (through(in(j, s))) p.fromBytes += in(j, s);
        toTotal += p.toBytes, fromTotal += p.fromBytes;
        pairs.push_back(p);
    }
    const BufRef toLeaders = toTotal ? b.temp(toTotal) : BufRef{};
    const BufRef fromLeaders = fromTotal ? b.temp(fromTotal) : BufRef{};
    std::vector<size_t> posOf(n, 0);  // index of rank r in `outside`
    for (size_t k = 0; k < outside.size(); ++k) posOf[outside[k]] = k;
    std::vector<StepId> arrivedFrom(h.groupCount(level), kNoStep);
    for (const Pair& p : pairs) {
        const std::vector<int>& other = h.groupMembers(level, p.g);
        if (p.toBytes > 0) {
            Deps transposed;
            size_t at = p.to;
            for (int d : other)
                for (size_t i = 0; i < gsize; ++i) {
                    const size_t bytes = out(i, d);
                    if (!through(bytes)) continue;
                    transposed.add(b.copy(rows.at(static_cast<ptrdiff_t>(rowAt[i][posOf[d]])), {kPackedType, bytes},
                                          toLeaders.at(static_cast<ptrdiff_t>(at)), {kPackedType, bytes}, haveRows));
                    at += bytes;
                }
            b.send(other.front(), toLeaders.at(static_cast<ptrdiff_t>(p.to)), {kPackedType, p.toBytes},
                   b.join(transposed), kLeaders);
        }
        if (p.fromBytes > 0)
            arrivedFrom[p.g] = b.recv(other.front(), fromLeaders.at(static_cast<ptrdiff_t>(p.from)),
                                      {kPackedType, p.fromBytes}, {}, kLeaders);
    }

    // Member j's incoming row: from each H, its slice [j][s in H] (contiguous), concatenated.
    size_t rowsOutTotal = 0;
    std::vector<size_t> inRow(gsize, 0);
    for (size_t j = 1; j < gsize; ++j) {
        for (int s : outside)
            if (through(in(j, s))) inRow[j] += in(j, s);
        rowsOutTotal += inRow[j];
    }
    const BufRef toMembers = rowsOutTotal ? b.temp(rowsOutTotal) : BufRef{};
    size_t memberAt = 0;
    for (size_t j = 0; j < gsize; ++j) {
        Deps built;
        size_t rowAtJ = 0;
        for (const Pair& p : pairs) {
            const std::vector<int>& other = h.groupMembers(level, p.g);
            size_t slice = p.from;  // slice j starts after the slices of members 0..j-1
            for (size_t jj = 0; jj < j; ++jj)
                for (int s : other)
                    if (through(in(jj, s))) slice += in(jj, s);
            size_t sliceBytes = 0;
            std::vector<int> order;
            for (int s : other)
                if (through(in(j, s))) sliceBytes += in(j, s), order.push_back(s);
            if (sliceBytes == 0) continue;
            const BufRef src = fromLeaders.at(static_cast<ptrdiff_t>(slice));
            if (j == 0) {
                // My own blocks: straight from the leaders' messages into rbuf.
                dm::copyRuns(b, order, -1, recvBytes, src, pb.recvOf, pb.recvAdjacent, true,
                             Deps{arrivedFrom[p.g], after});
            } else {
                built.add(b.copy(src, {kPackedType, sliceBytes},
                                 toMembers.at(static_cast<ptrdiff_t>(memberAt + rowAtJ)), {kPackedType, sliceBytes},
                                 arrivedFrom[p.g]));
                rowAtJ += sliceBytes;
            }
        }
        if (j > 0 && inRow[j] > 0) {
            b.send(members[j], toMembers.at(static_cast<ptrdiff_t>(memberAt)), {kPackedType, inRow[j]}, b.join(built),
                   kToMember);
            memberAt += inRow[j];
        }
    }
    return b.finish();
}

}  // namespace hieragg::recipes
