// Gather (all-to-one, SPEC 3.1): bottom-up, every space gathers to its root
// (the collective's root if inside, else its leader) over a k-nomial tree (k
// from the plan, Selection.hpp), so
// leaders hold their subspace's blocks as packed bytes (recvcount/recvtype mean
// nothing off the root) and each non-root leader sends exactly one message over
// the leader space. The root finally converts packed -> recvtype, merging runs
// of consecutive ranks into one copy. Flat: the same over the whole communicator.
#include <algorithm>
#include <string>

#include "DataMovement.hpp"
#include "DirectRooted.hpp"
#include "hieragg/algorithms/TreeGather.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::recipes {

namespace {
// Intercommunicator: the remote root receives one message from every rank of this group.
Schedule interGather(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b("inter-linear");
    if (a.root == HIERAGG_ROOT) {
        const ptrdiff_t block = static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent;
        for (int r = 0; r < c.remoteSize; ++r)
            b.recv(r, {kRecvBuf, r * block}, {kRecvType, a.rcount}, {}, 0);
    } else if (a.root >= 0) {
        b.send(a.root, {kSendBuf, 0}, {kSendType, a.scount}, {}, 0);
    }
    return b.finish();
}
}  // namespace

Schedule gather(const CollCall& c) {
    if (c.inter) return interGather(c);
    const auto& a = c.args;
    const bool isRoot = c.rank == a.root;
    const bool inPlace = isRoot && a.in_place;
    // Every rank sends the same signature, so all agree on the block size.
    const size_t blockBytes = inPlace ? a.rcount * c.rtype.size : a.scount * c.stype.size;
    const std::shared_ptr<const hier::Plan> plan = hier::planOf(c);
    if (auto built = builtByRow(c, *plan)) return std::move(*built);
    dm::Levels lv(c);
    if (plan->mode == hier::Plan::Mode::Flat) lv.flat = true;
    ScheduleBuilder b(lv.flat ? "flat-knomial" : "hier-knomial");
    const ptrdiff_t rblock = static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent;
    if (blockBytes == 0) return b.finish();

    const std::vector<size_t> rankBytes(static_cast<size_t>(c.size), blockBytes);
    std::vector<dm::Stage> stages = dm::stagesOf(lv, c.rank, a.root, lv.top(), rankBytes);
    std::vector<MemberTree> trees;
    size_t workBytes = 0;
    for (const auto& s : stages) {
        trees.push_back(plan->stages.at(s.level).shape.build(s.group.size(), s.rootIdx));
        workBytes = std::max(workBytes, TreeGather{trees.back()}.workBytes(s.group, s.memberBytes));
    }
    if (isRoot && stages.size() == 1 && dm::rootRunsAreContiguous(c.size, stages[0], trees[0])) {
        // Flat, every child's subtree a run of consecutive ranks: each run lands straight in
        // the user's buffer (the children send the same packed bytes), with no n-block
        // temporary at the root to fill and unpack.
        Deps done;
        if (!inPlace)
            done.add(b.copy({kSendBuf, 0}, {kSendType, a.scount}, {kRecvBuf, a.root * rblock}, {kRecvType, a.rcount}));
        const MemberTree& t = trees[0];
        for (int k : t.children[stages[0].rootIdx]) {
            const int v = t.virtualOf(k), first = stages[0].group.ranks[t.indexOf(v)];
            const size_t members = static_cast<size_t>(t.subtreeEnd[v] - v);
            done.add(b.recv(first, {kRecvBuf, first * rblock}, {kRecvType, a.rcount * members}, {},
                            stageChannel(static_cast<uint32_t>(stages[0].level))));
        }
        return b.finish();
    }
    BufRef work = workBytes ? b.temp(workBytes) : BufRef{};

    StepId ready = kNoStep;
    const Block own{{kSendBuf, 0}, {kSendType, a.scount}};
    for (size_t i = 0; i < stages.size(); ++i) {
        const dm::Stage& s = stages[i];
        // The root's own block goes straight from sbuf to rbuf: its slot stays empty.
        const bool inWork = i > 0 || isRoot;
        ready = TreeGather{trees[i]}.emit(b, s.group, s.memberBytes, own, inWork, work, ready,
                                          stageChannel(static_cast<uint32_t>(s.level))).ready;
    }
    if (!isRoot) return b.finish();

    Deps done;
    if (!inPlace)
        done.add(b.copy({kSendBuf, 0}, {kSendType, a.scount}, {kRecvBuf, a.root * rblock}, {kRecvType, a.rcount}));
    if (!stages.empty()) {
        const std::vector<int> order = dm::collectionOrder(lv, c.rank, a.root, lv.top());
        done.add(dm::copyRuns(
            b, order, a.root, rankBytes, work,
            [&](int r) { return Block{{kRecvBuf, r * rblock}, {kRecvType, a.rcount}}; },
            [](int x, int y) { return y == x + 1; }, true, ready));
    }
    return b.finish();
}

}  // namespace hieragg::recipes
