// Scatter (one-to-all, SPEC 3.1), the mirror of gather: the root packs sendbuf
// in the order of the decomposition's tree (runs of consecutive ranks in one
// copy), then top-down every space scatters over a k-nomial tree (k from the
// plan, Selection.hpp); leaders keep
// their subspace's blocks packed and only the final owner converts to recvtype.
#include <algorithm>
#include <string>

#include "DataMovement.hpp"
#include "DirectRooted.hpp"
#include "hieragg/algorithms/TreeScatter.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::recipes {

namespace {
Schedule interScatter(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b("inter-linear");
    if (a.root == HIERAGG_ROOT) {
        const ptrdiff_t block = static_cast<ptrdiff_t>(a.scount) * c.stype.extent;
        for (int r = 0; r < c.remoteSize; ++r)
            b.send(r, {kSendBuf, r * block}, {kSendType, a.scount}, {}, 0);
    } else if (a.root >= 0) {
        b.recv(a.root, {kRecvBuf, 0}, {kRecvType, a.rcount}, {}, 0);
    }
    return b.finish();
}
}  // namespace

Schedule scatter(const CollCall& c) {
    if (c.inter) return interScatter(c);
    const auto& a = c.args;
    const bool isRoot = c.rank == a.root;
    const bool inPlace = isRoot && a.in_place;
    const size_t blockBytes = isRoot ? a.scount * c.stype.size : a.rcount * c.rtype.size;
    const std::shared_ptr<const hier::Plan> plan = hier::planOf(c);
    if (auto built = builtByRow(c, *plan)) return std::move(*built);
    dm::Levels lv(c);
    if (plan->mode == hier::Plan::Mode::Flat) lv.flat = true;
    ScheduleBuilder b(lv.flat ? "flat-knomial" : "hier-knomial");
    if (blockBytes == 0) return b.finish();
    const ptrdiff_t sblock = static_cast<ptrdiff_t>(a.scount) * c.stype.extent;

    const std::vector<size_t> rankBytes(static_cast<size_t>(c.size), blockBytes);
    std::vector<dm::Stage> stages = dm::stagesOf(lv, c.rank, a.root, lv.top(), rankBytes);
    // Top-down; this rank's piece stays packed until its lowest stage.
    std::vector<MemberTree> trees;
    size_t workBytes = 0;
    for (size_t i = 0; i < stages.size(); ++i) {
        trees.push_back(plan->stages.at(stages[i].level).shape.build(stages[i].group.size(), stages[i].rootIdx));
        workBytes = std::max(workBytes, TreeScatter{trees.back()}.workBytes(stages[i].group, stages[i].memberBytes, i > 0));
    }
    if (isRoot && stages.size() == 1 && dm::rootRunsAreContiguous(c.size, stages[0], trees[0])) {
        // Flat, and every child's subtree is a run of consecutive ranks: each run leaves
        // straight from the user's buffer (the receivers take the same packed bytes), so
        // the root neither allocates nor fills an n-block copy of its send buffer.
        Deps done;
        if (!inPlace)
            done.add(b.copy({kSendBuf, a.root * sblock}, {kSendType, a.scount}, {kRecvBuf, 0}, {kRecvType, a.rcount}));
        const MemberTree& t = trees[0];
        const std::vector<int>& kids = t.children[stages[0].rootIdx];
        for (size_t i = kids.size(); i-- > 0;) {  // largest subtree first, as TreeScatter
            const int v = t.virtualOf(kids[i]), first = stages[0].group.ranks[t.indexOf(v)];
            const size_t members = static_cast<size_t>(t.subtreeEnd[v] - v);
            done.add(b.send(first, {kSendBuf, first * sblock}, {kSendType, a.scount * members}, {},
                            stageChannel(static_cast<uint32_t>(stages[0].level))));
        }
        return b.finish();
    }
    BufRef work = workBytes ? b.temp(workBytes) : BufRef{};

    StepId ready = kNoStep;
    Deps done;
    if (isRoot) {
        if (!inPlace)
            done.add(b.copy({kSendBuf, a.root * sblock}, {kSendType, a.scount}, {kRecvBuf, 0}, {kRecvType, a.rcount}));
        if (!stages.empty()) {
            const std::vector<int> order = dm::collectionOrder(lv, c.rank, a.root, lv.top());
            ready = b.join(dm::copyRuns(
                b, order, a.root, rankBytes, work,
                [&](int r) { return Block{{kSendBuf, r * sblock}, {kSendType, a.scount}}; },
                [](int x, int y) { return y == x + 1; }, false, {}));
        }
    }
    const Block own{{kRecvBuf, 0}, {kRecvType, a.rcount}};
    for (size_t i = stages.size(); i-- > 0;) {
        const dm::Stage& s = stages[i];
        Emitted e = TreeScatter{trees[i]}.emit(b, s.group, s.memberBytes, own, i > 0 || isRoot, work, ready,
                                               stageChannel(static_cast<uint32_t>(s.level)));
        ready = e.ready;
        done.add(e.done);
    }
    return b.finish();
}

}  // namespace hieragg::recipes
