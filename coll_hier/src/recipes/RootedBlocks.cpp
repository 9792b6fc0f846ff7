// Gather (all-to-one, SPEC 3.1) and scatter (one-to-all), one recipe in two directions
// (RootedBlocks.hpp). Gather: bottom-up, every space gathers to its root (the collective's root if inside,
// else its leader) over a k-nomial tree (k from the plan, Selection.hpp), so leaders hold
// their subspace's blocks as packed bytes (recvcount/recvtype mean nothing off the root)
// and each non-root leader sends exactly one message over the leader space; the root
// finally converts packed -> recvtype, merging runs of consecutive ranks into one copy.
// Scatter, the mirror: the root packs sendbuf in the order of the decomposition's tree
// (runs of consecutive ranks in one copy), then top-down every space scatters over a
// k-nomial tree; leaders keep their subspace's blocks packed and only the final owner
// converts to recvtype. Flat: the same over the whole communicator.
#include <algorithm>

#include "DataMovement.hpp"
#include "DirectRooted.hpp"
#include "InterLinear.hpp"
#include "RootedBlocks.hpp"
#include "hieragg/algorithms/PackedSubtrees.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::recipes {

RootedBlocks::RootedBlocks(const CollCall& c, bool toward) : toRoot(toward) {
    const auto& a = c.args;
    isRoot = c.rank == a.root;
    inPlace = isRoot && a.in_place;
    rootBuf = toRoot ? kRecvBuf : kSendBuf;
    rootSlot = toRoot ? kRecvType : kSendType;
    rootCount = toRoot ? a.rcount : a.scount;
    const hieragg_dtype_info& rootType = toRoot ? c.rtype : c.stype;
    stride = static_cast<ptrdiff_t>(rootCount) * rootType.extent;
    own = toRoot ? Block{{kSendBuf, 0}, {kSendType, a.scount}} : Block{{kRecvBuf, 0}, {kRecvType, a.rcount}};
    blockBytes = (toRoot ? inPlace : isRoot) ? rootCount * rootType.size
                                             : own.type.count * (toRoot ? c.stype : c.rtype).size;
}

StepId RootedBlocks::moveOwn(ScheduleBuilder& b, int root) const {
    const Block atRoot = rootBlockOf(root);
    return toRoot ? b.copy(own.buf, own.type, atRoot.buf, atRoot.type)
                  : b.copy(atRoot.buf, atRoot.type, own.buf, own.type);
}

namespace {
Schedule rootedBlocks(const CollCall& c, bool toRoot) {
    const auto& a = c.args;
    const RootedBlocks rb(c, toRoot);
    auto rootBlockOf = [&](int r) { return rb.rootBlockOf(r); };
    const Block& own = rb.own;
    const bool isRoot = rb.isRoot, inPlace = rb.inPlace;
    const size_t blockBytes = rb.blockBytes;
    // Intercommunicator: the remote root and every rank of this group, one message each.
    if (c.inter) return interRooted(c, toRoot, rootBlockOf, own);
    const std::shared_ptr<const hier::Plan> plan = hier::planOf(c);
    if (auto built = builtByRow(c, *plan)) return std::move(*built);
    dm::Levels lv(c);
    if (plan->mode == hier::Plan::Mode::Flat) lv.flat = true;
    ScheduleBuilder b(lv.flat ? "flat-knomial" : "hier-knomial");
    if (blockBytes == 0) return b.finish();

    const std::vector<size_t> rankBytes(static_cast<size_t>(c.size), blockBytes);
    std::vector<dm::Stage> stages = dm::stagesOf(lv, c.rank, a.root, lv.top(), rankBytes);
    // Gather runs them bottom-up, scatter top-down (a piece stays packed until its lowest stage).
    std::vector<MemberTree> trees;
    size_t workBytes = 0;
    for (size_t i = 0; i < stages.size(); ++i) {
        const dm::Stage& s = stages[i];
        trees.push_back(plan->stages.at(s.level).shape.build(s.group.size(), s.rootIdx));
        // A scatter's piece stays packed at work[0] below the top stage (keepInWork below).
        const bool leafKeepsWork = !toRoot && i > 0;
        workBytes = std::max(workBytes, PackedSubtrees{trees.back(), s.group, s.memberBytes}.workBytes(leafKeepsWork));
    }
    if (isRoot && stages.size() == 1 && dm::rootRunsAreContiguous(c.size, stages[0], trees[0])) {
        // Flat, every child's subtree a run of consecutive ranks: each run moves straight
        // between the user's buffer and the child (which moves the same packed bytes), with
        // no n-block temporary at the root to fill or unpack.
        Deps done;
        if (!inPlace) done.add(rb.moveOwn(b, a.root));
        const MemberTree& t = trees[0];
        const std::vector<int>& kids = t.children[stages[0].rootIdx];
        for (size_t i = 0; i < kids.size(); ++i) {
            // Scatter: largest subtree first, as PackedSubtrees::scatter.
            const int v = t.virtualOf(kids[toRoot ? i : kids.size() - 1 - i]);
            const int first = stages[0].group.ranks[t.indexOf(v)];
            const size_t members = static_cast<size_t>(t.subtreeEnd[v] - v);
            done.add(b.transfer(!toRoot, first, rootBlockOf(first).buf, {rb.rootSlot, rb.rootCount * members}, {},
                                stageChannel(static_cast<uint32_t>(stages[0].level))));
        }
        return b.finish();
    }
    BufRef work = workBytes ? b.temp(workBytes) : BufRef{};
    auto consecutive = [](int x, int y) { return y == x + 1; };

    StepId ready = kNoStep;
    Deps done;
    if (toRoot) {
        for (size_t i = 0; i < stages.size(); ++i) {
            const dm::Stage& s = stages[i];
            // The root's own block goes straight from sbuf to rbuf: its slot stays empty.
            const bool inWork = i > 0 || isRoot;
            ready = PackedSubtrees{trees[i], s.group, s.memberBytes}
                        .gather(b, own, inWork, work, ready, stageChannel(static_cast<uint32_t>(s.level)))
                        .ready;
        }
        if (!isRoot) return b.finish();
        if (!inPlace) done.add(rb.moveOwn(b, a.root));
        if (!stages.empty()) {
            const std::vector<int> order = dm::collectionOrder(lv, c.rank, a.root, lv.top());
            done.add(dm::copyRuns(b, order, a.root, rankBytes, work, rootBlockOf, consecutive, true, ready));
        }
        return b.finish();
    }
    if (isRoot) {
        if (!inPlace) done.add(rb.moveOwn(b, a.root));
        if (!stages.empty()) {
            const std::vector<int> order = dm::collectionOrder(lv, c.rank, a.root, lv.top());
            ready = b.join(dm::copyRuns(b, order, a.root, rankBytes, work, rootBlockOf, consecutive, false, {}));
        }
    }
    for (size_t i = stages.size(); i-- > 0;) {
        const dm::Stage& s = stages[i];
        Emitted e = PackedSubtrees{trees[i], s.group, s.memberBytes}.scatter(
            b, own, i > 0 || isRoot, work, ready, stageChannel(static_cast<uint32_t>(s.level)));
        ready = e.ready;
        done.add(e.done);
    }
    return b.finish();
}
}  // namespace

Schedule gather(const CollCall& c) { return rootedBlocks(c, true); }

Schedule scatter(const CollCall& c) { return rootedBlocks(c, false); }

}  // namespace hieragg::recipes
