// Barrier (SPEC 3.1): fan-in inside every subspace up to its leader (innermost
// level first), a barrier across the leader space (dissemination or a k-nomial
// fan-in/release, as the plan says), then a release down each subspace; or one
// fan-in/release over the minimum-height tree of the whole hierarchy; or one
// flat barrier. Zero-byte messages throughout.
#include <string>

#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/SpaceGroup.hpp"
#include "hieragg/Transport.hpp"

namespace hieragg::recipes {

namespace {
const TypeRef kNothing{kPackedType, 0};
const BufRef kAnywhere{kRecvBuf, 0};

// Fan-in up `t` (over g's members) to its root; returns when my subtree has arrived.
// `after`: my own entry (a leader's whole inner space has arrived).
StepId fanIn(ScheduleBuilder& b, const Group& g, const MemberTree& t, StepId after, uint32_t channel) {
    Deps arrived{after};
    for (int child : t.children[g.me]) arrived.add(b.recv(g.ranks[child], kAnywhere, kNothing, {}, channel));
    StepId all = b.join(arrived);
    if (t.parent[g.me] >= 0) return b.send(g.ranks[t.parent[g.me]], kAnywhere, kNothing, all, channel);
    return all;
}
// Release down the same tree.
StepId release(ScheduleBuilder& b, const Group& g, const MemberTree& t, StepId have, uint32_t channel) {
    return TreeBcast{t}.emit(b, g, kAnywhere, kNothing, 0, have, {}, channel).ready;
}

// Intercommunicator: local fan-in to local rank 0, the two rank 0s exchange a
// token (so nobody leaves before the whole remote group has entered), local release.
Schedule interBarrier(const CollCall& c) {
    ScheduleBuilder b("inter-fanin-exchange-release");
    Group g = Group::whole(c.size, c.rank);
    const MemberTree t = TreeShape::knomial(2).build(c.size, 0);
    b.setLocalComm(true);
    StepId in = fanIn(b, g, t, kNoStep, stageChannel(0));
    StepId remote = kNoStep;
    if (c.rank == 0) {
        b.setLocalComm(false);
        StepId sent = b.send(0, kAnywhere, kNothing, in, stageChannel(1));
        remote = b.join({sent, b.recv(0, kAnywhere, kNothing, in, stageChannel(1))});
        b.setLocalComm(true);
    }
    release(b, g, t, remote, stageChannel(2));
    return b.finish();
}

std::string stageName(const hier::StageChoice& s) {
    if (s.algo && s.algo->space) return s.algo->name;
    if (s.algo && (s.algo->traits & hier::kTraitFabric)) return "ofi-barrier";
    return "knomial(k=" + std::to_string(s.shape.k) + ")";
}
}  // namespace

Schedule barrier(const CollCall& c) {
    if (c.inter) return interBarrier(c);
    ScheduleBuilder b;
    const std::shared_ptr<const hier::Plan> plan = hier::planOf(c);
    const Group whole = Group::whole(c.size, c.rank);
    // One barrier over group g: its row's own (AlgorithmInfo::space), else a tree rooted at member 0.
    auto oneSpace = [&](const hier::StageChoice& s, const Group& g, StepId after, uint32_t fanCh,
                        uint32_t releaseCh) {
        if (s.algo && s.algo->space) return s.algo->space(b, g, after, fanCh);
        const MemberTree t = s.shape.build(g.size(), 0);
        return release(b, g, t, fanIn(b, g, t, after, fanCh), releaseCh);
    };
    if (plan->mode == hier::Plan::Mode::Flat) {
        b.appendAlgorithm("flat-" + stageName(plan->stages.at(0)));
        if (c.size > 1) oneSpace(plan->stages[0], whole, kNoStep, stageChannel(0), stageChannel(1));
        return b.finish();
    }
    const hier::Hierarchy& h = *c.hierarchy;
    if (plan->mode == hier::Plan::Mode::Whole) {
        const int k = plan->stages.at(0).shape.k;
        b.appendAlgorithm("hier_knomial(k=" + std::to_string(k) + ")");
        const MemberTree t =
            MemberTree::of(aggtree::buildHierarchicalKnomialTree(hier::toProcessHierarchy(h), k, aggtree::kAnyRoot));
        // kAnyRoot: the builder picks the leaders; the tree's root releases everyone.
        release(b, whole, t, fanIn(b, whole, t, kNoStep, stageChannel(0)), stageChannel(1));
        return b.finish();
    }
    const int levels = h.levels();
    b.appendAlgorithm("hier-fanin+leaders:" + stageName(plan->stages.at(levels)) + "+release");
    // Up: each subspace reports to its leader (unrooted: the lowest rank).
    std::vector<hier::SpaceGroup> spaces;
    std::vector<MemberTree> trees;
    StepId entered = kNoStep;
    for (int level = 0; level < levels; ++level) {
        spaces.push_back(hier::spaceGroup(h, level, c.rank, -1));
        const Group& g = spaces.back().group;
        trees.push_back(g.me < 0 ? MemberTree{} : plan->stages.at(level).shape.build(g.size(), 0));
        if (g.me < 0) break;
        if (g.size() > 1) entered = fanIn(b, g, trees.back(), entered, stageChannel(static_cast<uint32_t>(level)));
        if (g.me != 0) break;  // not the leader: wait for the release
    }
    hier::SpaceGroup leaders = hier::spaceGroup(h, levels, c.rank, -1);
    StepId released = entered;
    const hier::StageChoice& top = plan->stages.at(levels);
    if (leaders.group.me >= 0 && leaders.group.size() > 1 && top.algo && (top.algo->traits & hier::kTraitFabric))
        released = b.collective(static_cast<uint8_t>(FabricKind::Barrier), kAnywhere, kAnywhere, 0, 0, entered);
    else if (leaders.group.me >= 0 && leaders.group.size() > 1)
        released = oneSpace(plan->stages.at(levels), leaders.group, entered,
                            stageChannel(static_cast<uint32_t>(levels)),
                            stageChannel(static_cast<uint32_t>(2 * levels + 1)));
    // Down: release each subspace from the top.
    for (int level = static_cast<int>(spaces.size()) - 1; level >= 0; --level) {
        const Group& g = spaces[level].group;
        if (g.me < 0 || g.size() <= 1) continue;
        released = release(b, g, trees[level], released, stageChannel(static_cast<uint32_t>(levels + 1 + level)));
    }
    return b.finish();
}

}  // namespace hieragg::recipes
