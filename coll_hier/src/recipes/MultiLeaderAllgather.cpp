#include "MultiLeaderAllgather.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::recipes {

namespace {
constexpr uint32_t kColumnStage = 1, kNodeStage = 2;

// Messages between one ordered pair of ranks: message k travels on channel base + k mod W
// and waits for message k - W of the same pair (on both ends), so each channel carries its
// messages in posting order whatever order their dependencies complete in; both ends
// number a pair's messages alike (the same loop over blocks and pieces).
class PairLanes {
public:
    PairLanes(ScheduleBuilder& b, Deps& all) : b_(b), all_(all) {}
    StepId send(int peer, BufRef buf, TypeRef t, Deps deps, uint32_t base) {
        std::vector<StepId>& v = sends_[peer];
        deps.add(v.size() >= kMultiLeaderWindow ? v[v.size() - kMultiLeaderWindow] : kNoStep);
        const StepId s = b_.send(peer, buf, t, deps, base + static_cast<uint32_t>(v.size() % kMultiLeaderWindow));
        v.push_back(s);
        all_.add(s);
        return s;
    }
    StepId recv(int peer, BufRef buf, TypeRef t, uint32_t base) {
        std::vector<StepId>& v = recvs_[peer];
        const Deps deps{v.size() >= kMultiLeaderWindow ? v[v.size() - kMultiLeaderWindow] : kNoStep};
        const StepId s = b_.recv(peer, buf, t, deps, base + static_cast<uint32_t>(v.size() % kMultiLeaderWindow));
        v.push_back(s);
        all_.add(s);
        return s;
    }

private:
    ScheduleBuilder& b_;
    Deps& all_;
    std::map<int, std::vector<StepId>> sends_, recvs_;
};
}  // namespace

Schedule multiLeaderAllgather(const CollCall& c, const std::function<Block(int)>& blockOf, const Block& mine) {
    ScheduleBuilder b("multileader-allgather");
    const hier::Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1, G = h.groupCount(top), g = h.groupOf(top, c.rank);
    const std::vector<int>& node = h.groupMembers(top, g);
    const int M = static_cast<int>(node.size());
    const int j = static_cast<int>(std::find(node.begin(), node.end(), c.rank) - node.begin());
    auto memberOf = [&](int group, int idx) { return h.groupMembers(top, ((group % G) + G) % G)[idx]; };
    const int nextCol = memberOf(g + 1, j), prevCol = memberOf(g - 1, j);
    const ptrdiff_t ext = c.rtype.extent;
    auto pieceOf = [&](size_t count) { return multiLeaderPiece(count, c.rtype.size, c.segmentBytes, G); };

    Deps all;
    PairLanes lanes(b, all);
    // Own block into rbuf: the pieces this rank sends are cut from there in kRecvType, as
    // every receiver cuts them (send and receive types may differ, signatures match).
    const Block ownAt = blockOf(c.rank);
    const StepId own = c.args.in_place || ownAt.type.count == 0
                           ? kNoStep
                           : b.copy(mine.buf, mine.type, ownAt.buf, ownAt.type);
    all.add(own);

    // Round t: this rank holds the block of member j of node g - t (t = 0: its own; t > 0:
    // what the column ring brought in step t - 1). It passes each piece on to the next node
    // (unless that node is where the block started) and to every other member of its node;
    // and it receives the pieces of round t of every other member k of its node (the block
    // of member k of node g - t), straight into rbuf.
    for (int t = 0; t < G; ++t) {
        const int origin = memberOf(g - t, j);
        const Block blk = blockOf(origin);
        const size_t piece = pieceOf(blk.type.count);
        for (size_t lo = 0; lo < blk.type.count; lo += piece) {
            const BufRef buf = blk.buf.at(static_cast<ptrdiff_t>(lo) * ext);
            const TypeRef type{kRecvType, std::min(piece, blk.type.count - lo)};
            const StepId have = t == 0 ? own : lanes.recv(prevCol, buf, type, stageChannel(kColumnStage));
            if (t + 1 < G) lanes.send(nextCol, buf, type, Deps{have}, stageChannel(kColumnStage));
            for (int k = 0; k < M; ++k)
                if (k != j) lanes.send(node[k], buf, type, Deps{have}, stageChannel(kNodeStage));
        }
        for (int k = 0; k < M; ++k) {
            if (k == j) continue;
            const Block other = blockOf(memberOf(g - t, k));
            const size_t p = pieceOf(other.type.count);
            for (size_t lo = 0; lo < other.type.count; lo += p)
                lanes.recv(node[k], other.buf.at(static_cast<ptrdiff_t>(lo) * ext),
                           TypeRef{kRecvType, std::min(p, other.type.count - lo)}, stageChannel(kNodeStage));
        }
    }
    b.join(all);
    return b.finish();
}

size_t multiLeaderPiece(size_t count, size_t elemBytes, size_t segmentBytes, int groups) {
    const size_t elem = std::max<size_t>(1, elemBytes);
    const size_t segElems = segmentBytes ? std::max<size_t>(1, segmentBytes / elem) : SIZE_MAX;
    size_t piece = std::max(segElems, (count + kMultiLeaderMaxPieces - 1) / kMultiLeaderMaxPieces);
    if (groups > 2)
        piece = std::min(piece, std::max(std::max<size_t>(1, kMultiLeaderMinPieceBytes / elem),
                                         (count + kMultiLeaderRingPieces - 1) / kMultiLeaderRingPieces));
    return std::max<size_t>(piece, 1);
}

bool multiLeaderPays(const CollCall& c, const std::function<Block(int)>& blockOf) {
    size_t elems = 0;
    for (int r = 0; r < c.size; ++r) elems += blockOf(r).type.count;
    CollCall same = c;  // every rank sees the same counts, so every rank decides alike
    same.args.kind = HIERAGG_ALLGATHER;
    same.args.rcount = c.size > 0 ? elems / static_cast<size_t>(c.size) : 0;
    same.algorithm = 0;
    same.plan = nullptr;
    const std::shared_ptr<const hier::Plan> plan = hier::planOf(same);
    return plan->stages.size() == 1 && plan->stages[0].algo &&
           std::strcmp(plan->stages[0].algo->name, "multileader") == 0;
}

}  // namespace hieragg::recipes
