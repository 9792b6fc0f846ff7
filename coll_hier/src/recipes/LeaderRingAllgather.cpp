#include "LeaderRingAllgather.hpp"

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
};
// Maximal runs of consecutive ranks among `members` (ascending).
std::vector<Run> runsOf(const std::vector<int>& members) {
    std::vector<Run> out;
    for (int r : members) {
        if (!out.empty() && out.back().first + out.back().ranks == r) ++out.back().ranks;
        else out.push_back({r, 1});
    }
    return out;
}
constexpr uint32_t kGatherStage = 1, kRingStage = 2, kBcastStage = 3;  // bcast: stages 3..6
}  // namespace

Schedule leaderRingAllgather(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b("leader-ring-allgather");
    if (a.rcount * c.rtype.size == 0) return b.finish();
    const hier::Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1, G = h.groupCount(top), mine = h.groupOf(top, c.rank);
    const ptrdiff_t rblock = static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent;
    auto at = [&](int rank) { return BufRef{kRecvBuf, rank * rblock}; };
    auto runType = [&](const Run& r) { return TypeRef{kRecvType, a.rcount * static_cast<size_t>(r.ranks)}; };
    Group inner;
    inner.ranks = h.groupMembers(top, mine);
    inner.me = inner.indexOf(c.rank);
    const int leader = inner.ranks.front();
    const bool isLeader = c.rank == leader;
    const MemberTree tree = TreeShape::knomial(2).build(inner.size(), 0);
    const TreeBcast bcast{tree};

    // 1. Blocks to the leader, straight into its rbuf (own block copied unless in place).
    StepId own = kNoStep;
    if (!a.in_place && (isLeader || inner.size() == 1))
        own = b.copy({kSendBuf, 0}, {kSendType, a.scount}, at(c.rank), {kRecvType, a.rcount});
    StepId sentMine = kNoStep;
    Deps gathered{own};
    if (isLeader) {
        for (int r : inner.ranks)
            if (r != c.rank) gathered.add(b.recv(r, at(r), {kRecvType, a.rcount}, {}, stageChannel(kGatherStage)));
    } else {
        const BufRef src = a.in_place ? at(c.rank) : BufRef{kSendBuf, 0};
        const TypeRef t = a.in_place ? TypeRef{kRecvType, a.rcount} : TypeRef{kSendType, a.scount};
        sentMine = b.send(leader, src, t, {}, stageChannel(kGatherStage));
    }
    Deps all = gathered;
    all.add(sentMine);

    // 2 + 3. Group (mine - s) mod G: the leader has it after ring step s - 1 (s = 0: its own);
    // it forwards it to the next leader and broadcasts it into its group.
    std::vector<int> leaders;
    for (int g = 0; g < G; ++g) leaders.push_back(h.groupMembers(top, g).front());
    const int next = leaders[(mine + 1) % G], prev = leaders[(mine + G - 1) % G];
    StepId have = b.join(gathered);
    uint32_t bcastChannel = 0;
    for (int s = 0; s < G; ++s) {
        const int g = ((mine - s) % G + G) % G;
        const std::vector<Run> runs = runsOf(h.groupMembers(top, g));
        Deps arrived;
        if (isLeader && s > 0) {
            for (const Run& r : runs)
                arrived.add(b.recv(prev, at(r.first), runType(r), {}, segmentChannel(stageChannel(kRingStage), s - 1)));
            have = b.join(arrived);
            all.add(have);
        }
        if (isLeader && s + 1 < G)
            for (const Run& r : runs)
                all.add(b.send(next, at(r.first), runType(r), have, segmentChannel(stageChannel(kRingStage), s)));
        if (inner.size() > 1)
            for (const Run& r : runs) {
                // In place, a member's own block must have left for the leader before it comes back.
                const Deps gate = g == mine ? Deps{sentMine} : Deps{};
                const uint32_t ch = stageChannel(kBcastStage) + bcastChannel++ % (4 * kStageChannels);
                all.add(bcast.emit(b, inner, at(r.first), runType(r), c.rtype.extent, have, gate, ch).done);
            }
    }
    b.join(all);
    return b.finish();
}

}  // namespace hieragg::recipes
