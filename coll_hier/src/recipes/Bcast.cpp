// Broadcast (one-to-all): root -> leaders over the leader space, then each
// leader -> its subspace, all subspaces at once; nested levels top-down. The
// plan (Selection.hpp) picks each stage's tree (k-nomial with the model's k,
// k-ary, or the pipelined chain of SPEC 3.5 with its chunk), or one
// minimum-height tree over the whole hierarchy, or one flat tree.
#include <algorithm>
#include <string>

#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/SpaceGroup.hpp"

namespace hieragg::recipes {

namespace {
std::string stageName(const hier::StageChoice& s) {
    std::string n = s.shape.name();
    if (s.shape.kind != TreeShape::Kind::Chain) n += "(k=" + std::to_string(s.shape.k) + ")";
    return n;
}
}  // namespace

Schedule bcast(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b;
    BufRef buf{kRecvBuf, 0};
    TypeRef type{kRecvType, a.rcount};

    if (c.inter) {
        // Root sends to remote rank 0, which broadcasts inside its local group.
        b.appendAlgorithm("inter-root+knomial");
        if (a.root == HIERAGG_ROOT) {
            b.send(0, buf, type);
        } else if (a.root >= 0) {
            StepId got = c.rank == 0 ? b.recv(a.root, buf, type) : kNoStep;
            b.setLocalComm(true);
            const MemberTree t = TreeShape::knomial(2).build(c.size, 0);
            TreeBcast{t}.emit(b, Group::whole(c.size, c.rank), buf, type, c.rtype.extent, got, {},
                              stageChannel(1));
        }
        return b.finish();
    }

    const std::shared_ptr<const hier::Plan> plan = hier::planOf(c);
    const Group whole = Group::whole(c.size, c.rank);

    // Segments are cut from the packed byte stream, the only thing ranks with different
    // datatypes (same signature) agree on: contiguous buffers are their own stream, others
    // pack into a temporary on the root and unpack at the end.
    const size_t totalBytes = a.rcount * c.rtype.size;
    bool segmented = false;
    for (const auto& s : plan->stages) segmented |= s.algo && s.segmentBytes && s.segmentBytes < totalBytes;
    StepId ready = kNoStep;
    const bool contiguous = c.rtype.extent == static_cast<ptrdiff_t>(c.rtype.size) && c.rtype.true_lb == 0 &&
                            c.rtype.true_extent == static_cast<ptrdiff_t>(c.rtype.size);
    ptrdiff_t extent = c.rtype.extent;
    if (segmented) {
        if (!contiguous) {
            BufRef stream = b.temp(totalBytes);
            if (c.rank == a.root) ready = b.copy(buf, type, stream, {kPackedType, totalBytes});
            buf = stream;
        }
        type = {kPackedType, totalBytes};
        extent = 1;
    }
    // Segment of a stage in elements of `type` (packed bytes once segmented).
    auto segCount = [&](const hier::StageChoice& s) -> size_t { return segmented ? s.segmentBytes : 0; };
    auto finish = [&] {
        if (segmented && !contiguous && c.rank != a.root)
            b.copy(buf, type, BufRef{kRecvBuf, 0}, TypeRef{kRecvType, a.rcount}, ready);
        return b.finish();
    };

    if (plan->mode == hier::Plan::Mode::Flat) {
        const hier::StageChoice& s = plan->stages.at(0);
        b.appendAlgorithm("flat-" + stageName(s));
        if (s.algo)
            ready = TreeBcast{s.shape.build(c.size, a.root), segCount(s)}
                        .emit(b, whole, buf, type, extent, ready, {}, 0)
                        .ready;
        return finish();
    }
    const hier::Hierarchy& h = *c.hierarchy;
    if (plan->mode == hier::Plan::Mode::Whole) {
        const hier::StageChoice& s = plan->stages.at(0);
        b.appendAlgorithm("hier_knomial(k=" + std::to_string(s.shape.k) + ")");
        const MemberTree t =
            MemberTree::of(aggtree::buildHierarchicalKnomialTree(hier::toProcessHierarchy(h), s.shape.k, a.root));
        ready = TreeBcast{t, segCount(s)}.emit(b, whole, buf, type, extent, ready, {}, 0).ready;
        return finish();
    }
    for (int level = h.levels(); level >= 0; --level) {
        hier::SpaceGroup sg = hier::spaceGroup(h, level, c.rank, a.root);
        const hier::StageChoice& s = plan->stages.at(level);
        if (sg.group.size() <= 1 || !s.algo) continue;
        b.appendAlgorithm(std::string(level == h.levels() ? "leaders:" : "L" + std::to_string(level) + ":") +
                          stageName(s));
        const MemberTree t = s.shape.build(sg.group.size(), sg.rootIdx);
        ready = TreeBcast{t, segCount(s)}
                    .emit(b, sg.group, buf, type, extent, ready, {}, stageChannel(static_cast<uint32_t>(level)))
                    .ready;
    }
    return finish();
}

}  // namespace hieragg::recipes
