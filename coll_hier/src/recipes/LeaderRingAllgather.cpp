#include "LeaderRingAllgather.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/MemberTree.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::recipes {

namespace {
struct Run {
    int first = 0;  // rank
    int ranks = 0;
    size_t count = 0;  // elements of kRecvType
};
// Maximal runs of consecutive ranks with adjacent blocks among `members` (ascending).
std::vector<Run> runsOf(const std::vector<int>& members, const std::function<Block(int)>& blockOf,
                        const std::function<bool(int, int)>& adjacent) {
    std::vector<Run> out;
    for (int r : members) {
        const size_t n = blockOf(r).type.count;
        const int lastRank = out.empty() ? -2 : out.back().first + out.back().ranks - 1;
        if (!out.empty() && lastRank + 1 == r && adjacent(lastRank, r)) {
            ++out.back().ranks;
            out.back().count += n;
        } else {
            out.push_back({r, 1, n});
        }
    }
    return out;
}
constexpr uint32_t kGatherStage = 1, kRingStage = 2, kBcastStage = 3;
constexpr size_t kWindow = 64;         // segments in flight per channel family (< kStageChannels)
constexpr size_t kMaxSegments = 64;    // segments per ring step, beyond one per run
}  // namespace

bool oneRunPerGroup(const CollCall& c, const std::function<bool(int, int)>& adjacent) {
    const hier::Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1;
    for (int g = 0; g < h.groupCount(top); ++g) {
        const std::vector<int>& m = h.groupMembers(top, g);
        for (size_t i = 1; i < m.size(); ++i)
            if (m[i] != m[i - 1] + 1 || !adjacent(m[i - 1], m[i])) return false;
    }
    return true;
}

bool segmentLongRuns(const CollCall& c, const std::function<Block(int)>& blockOf,
                     const std::function<bool(int, int)>& adjacent) {
    const hier::Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1;
    size_t runs = 0, elems = 0;
    for (int g = 0; g < h.groupCount(top); ++g)
        for (const Run& r : runsOf(h.groupMembers(top, g), blockOf, adjacent)) ++runs, elems += r.count;
    return runs > 0 && c.segmentBytes > 0 && elems * c.rtype.size >= runs * c.segmentBytes;
}

Schedule leaderRingAllgather(const CollCall& c, const std::function<Block(int)>& blockOf, const Block& input,
                             const std::function<bool(int, int)>& adjacent) {
    const auto& a = c.args;
    ScheduleBuilder b("leader-ring-allgather");
    const hier::Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1, G = h.groupCount(top), mine = h.groupOf(top, c.rank);
    auto at = [&](int rank) { return blockOf(rank).buf; };
    const ptrdiff_t ext = c.rtype.extent;
    Group inner;
    inner.ranks = h.groupMembers(top, mine);
    inner.me = inner.indexOf(c.rank);
    const int leader = inner.ranks.front();
    const bool isLeader = c.rank == leader;
    const MemberTree tree = TreeShape::knomial(2).build(inner.size(), 0);
    const TreeBcast bcast{tree};

    // 1. Blocks to the leader, straight into its rbuf (own block copied unless in place).
    std::vector<StepId> gotBlock(c.size, kNoStep);  // leader: when rank r's block is in its rbuf
    StepId own = kNoStep;
    if (!a.in_place && (isLeader || inner.size() == 1))
        own = b.copy(input.buf, input.type, at(c.rank), blockOf(c.rank).type);
    gotBlock[c.rank] = own;
    StepId sentMine = kNoStep;
    Deps all{own};
    if (isLeader) {
        for (int r : inner.ranks)
            if (r != c.rank) all.add(gotBlock[r] = b.recv(r, at(r), blockOf(r).type, {}, stageChannel(kGatherStage)));
    } else {
        sentMine = b.send(leader, input.buf, input.type, {}, stageChannel(kGatherStage));
    }
    all.add(sentMine);

    // 2 + 3. Group (mine - s) mod G: the leader has it after ring step s - 1 (s = 0: its own);
    // it forwards it to the next leader and broadcasts it into its group, segment by segment
    // as the segments arrive, so a node block never waits whole in a leader. Segments of a
    // step are cut from its runs; a step has at most kMaxSegments of them plus one per run
    // (longer segments beyond that), so the schedule's size does not grow with the message.
    // Ring segment k (numbered over steps, runs, pieces alike on both ends) travels on
    // channel k mod kWindow; its receive waits for receive k - kWindow and its send for send
    // k - kWindow, so each channel carries its segments in order on both ends (MPI matches in
    // posting order) with kWindow segments in flight. The group's bcasts do the same.
    std::vector<int> leaders;
    for (int g = 0; g < G; ++g) leaders.push_back(h.groupMembers(top, g).front());
    const int next = leaders[(mine + 1) % G], prev = leaders[(mine + G - 1) % G];
    const size_t segElems = c.segmentBytes ? std::max<size_t>(1, c.segmentBytes / std::max<size_t>(1, c.rtype.size))
                                           : SIZE_MAX;
    std::vector<StepId> ringRecv, ringSend, bcastDone;  // by segment number
    auto windowed = [](const std::vector<StepId>& v) {
        return v.size() >= kWindow ? v[v.size() - kWindow] : kNoStep;
    };
    for (int s = 0; s < G; ++s) {
        const int g = ((mine - s) % G + G) % G;
        const std::vector<Run> runs = runsOf(h.groupMembers(top, g), blockOf, adjacent);
        size_t total = 0;
        for (const Run& r : runs) total += r.count;
        const size_t seg = std::max(segElems, (total + kMaxSegments - 1) / kMaxSegments);
        for (const Run& r : runs) {
            // Own group: a run is ready once its ranks' blocks are in.
            Deps ownRun;
            if (s == 0)
                for (int x = r.first; x < r.first + r.ranks; ++x) ownRun.add(gotBlock[x]);
            for (size_t lo = 0; lo < r.count; lo += seg) {
                const BufRef buf = at(r.first).at(static_cast<ptrdiff_t>(lo) * ext);
                const TypeRef t{kRecvType, std::min(seg, r.count - lo)};
                StepId have = s == 0 ? b.join(ownRun) : kNoStep;
                if (isLeader && s > 0) {
                    have = b.recv(prev, buf, t, Deps{windowed(ringRecv)},
                                  stageChannel(kRingStage) + static_cast<uint32_t>(ringRecv.size() % kWindow));
                    ringRecv.push_back(have);
                    all.add(have);
                }
                if (isLeader && s + 1 < G) {
                    const StepId sent =
                        b.send(next, buf, t, Deps{have, windowed(ringSend)},
                               stageChannel(kRingStage) + static_cast<uint32_t>(ringSend.size() % kWindow));
                    ringSend.push_back(sent);
                    all.add(sent);
                }
                if (inner.size() > 1) {
                    // In place, a member's own block must have left for the leader before it comes back.
                    const StepId before = windowed(bcastDone);
                    Deps gate{before};
                    if (g == mine) gate.add(sentMine);
                    const uint32_t ch = stageChannel(kBcastStage) + static_cast<uint32_t>(bcastDone.size() % kWindow);
                    const Emitted e = bcast.emit(b, inner, buf, t, ext, b.join({have, before}), gate, ch);
                    bcastDone.push_back(e.done);
                    all.add(e.done);
                }
            }
        }
    }
    b.join(all);
    return b.finish();
}

}  // namespace hieragg::recipes
