// Barrier (SPEC 3.1): fan-in inside every subspace up to its leader (innermost
// level first), a dissemination barrier across the leader space, then a
// release broadcast down each subspace. Zero-byte messages throughout.
#include <string>

#include "hieragg/algorithms/DisseminationBarrier.hpp"
#include "hieragg/algorithms/GatedBinomialBcast.hpp"
#include "hieragg/algorithms/OrderedBinomialReduce.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/SpaceGroup.hpp"

namespace hieragg::recipes {

namespace {
enum Algo { Auto = 0, Dissemination = 1, Flat = 2 };
const TypeRef kNothing{kPackedType, 0};
const BufRef kAnywhere{kRecvBuf, 0};

// Fan-in over a binomial tree to the group's member 0; returns when my subtree has
// arrived. `after`: my own entry (a leader's whole inner space has arrived).
StepId fanIn(ScheduleBuilder& b, const Group& g, StepId after, uint32_t channel) {
    const BinomialTree t = BinomialTree::of(g.size(), g.me, 0);
    Deps arrived{after};
    for (int child : t.children) arrived.add(b.recv(g.ranks[child], kAnywhere, kNothing, {}, channel));
    StepId all = b.join(arrived);
    if (t.parent >= 0) return b.send(g.ranks[t.parent], kAnywhere, kNothing, all, channel);
    return all;
}

// Intercommunicator: local fan-in to local rank 0, the two rank 0s exchange a
// token (so nobody leaves before the whole remote group has entered), local release.
Schedule interBarrier(const CollCall& c) {
    ScheduleBuilder b("inter-fanin-exchange-release");
    Group g = Group::whole(c.size, c.rank);
    b.setLocalComm(true);
    StepId in = fanIn(b, g, kNoStep, stageChannel(0));
    StepId remote = kNoStep;
    if (c.rank == 0) {
        b.setLocalComm(false);
        StepId sent = b.send(0, kAnywhere, kNothing, in, stageChannel(1));
        remote = b.join({sent, b.recv(0, kAnywhere, kNothing, in, stageChannel(1))});
        b.setLocalComm(true);
    }
    GatedBinomialBcast{}.emit(b, g, 0, kAnywhere, kNothing, remote, {}, stageChannel(2));
    return b.finish();
}
}  // namespace

Schedule barrier(const CollCall& c) {
    if (c.inter) return interBarrier(c);
    ScheduleBuilder b;
    if (!useHierarchy(c) || c.algorithm == Flat) {
        b.appendAlgorithm("flat-dissemination");
        DisseminationBarrier{}.emit(b, Group::whole(c.size, c.rank), {}, stageChannel(0));
        return b.finish();
    }
    const hier::Hierarchy& h = *c.hierarchy;
    const int levels = h.levels();
    b.appendAlgorithm("hier-fanin+leaders:dissemination+release");
    // Up: each subspace reports to its leader (unrooted: the lowest rank).
    std::vector<hier::SpaceGroup> spaces;
    StepId entered = kNoStep;
    for (int level = 0; level < levels; ++level) {
        spaces.push_back(hier::spaceGroup(h, level, c.rank, -1));
        const Group& g = spaces.back().group;
        if (g.me < 0) break;
        if (g.size() > 1) entered = fanIn(b, g, entered, stageChannel(static_cast<uint32_t>(level)));
        if (g.me != 0) break;  // not the leader: wait for the release
    }
    hier::SpaceGroup leaders = hier::spaceGroup(h, levels, c.rank, -1);
    StepId released = entered;
    if (leaders.group.me >= 0)
        released = DisseminationBarrier{}.emit(b, leaders.group, entered, stageChannel(static_cast<uint32_t>(levels)));
    // Down: release each subspace from the top.
    for (int level = static_cast<int>(spaces.size()) - 1; level >= 0; --level) {
        const Group& g = spaces[level].group;
        if (g.me < 0 || g.size() <= 1) continue;
        released = GatedBinomialBcast{}
                       .emit(b, g, 0, kAnywhere, kNothing, released, {},
                             stageChannel(static_cast<uint32_t>(levels + 1 + level)))
                       .ready;
    }
    return b.finish();
}

}  // namespace hieragg::recipes
