#include "LeaderRingAllgather.hpp"

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
constexpr uint32_t kGatherStage = 1, kRingStage = 2, kBcastStage = 3;  // bcast: stages 3..6
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

Schedule leaderRingAllgather(const CollCall& c, const std::function<Block(int)>& blockOf, const Block& input,
                             const std::function<bool(int, int)>& adjacent) {
    const auto& a = c.args;
    ScheduleBuilder b("leader-ring-allgather");
    const hier::Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1, G = h.groupCount(top), mine = h.groupOf(top, c.rank);
    auto at = [&](int rank) { return blockOf(rank).buf; };
    auto runType = [&](const Run& r) { return TypeRef{kRecvType, r.count}; };
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
        own = b.copy(input.buf, input.type, at(c.rank), blockOf(c.rank).type);
    StepId sentMine = kNoStep;
    Deps gathered{own};
    if (isLeader) {
        for (int r : inner.ranks)
            if (r != c.rank) gathered.add(b.recv(r, at(r), blockOf(r).type, {}, stageChannel(kGatherStage)));
    } else {
        sentMine = b.send(leader, input.buf, input.type, {}, stageChannel(kGatherStage));
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
        const std::vector<Run> runs = runsOf(h.groupMembers(top, g), blockOf, adjacent);
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
