// Broadcast (one-to-all): root -> leaders over the leader space, then each
// leader -> its subspace, all subspaces at once; nested levels top-down. The
// plan (Selection.hpp) picks each stage's tree (k-nomial with the model's k,
// k-ary, or the pipelined chain of SPEC 3.5 with its chunk), or one
// minimum-height tree over the whole hierarchy, or one flat tree.
#include <algorithm>
#include <string>

#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"
#include "PipelinedTree.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/SpaceGroup.hpp"
#include "hieragg/hier/WholeTree.hpp"
#include "hieragg/Transport.hpp"

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
    if (auto built = builtByRow(c, *plan)) return std::move(*built);
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
        std::string name;
        const MemberTree t = hier::wholePlanTree(c, s, a.root, &name);
        b.appendAlgorithm(name);
        ready = TreeBcast{t, segCount(s)}.emit(b, whole, buf, type, extent, ready, {}, 0).ready;
        return finish();
    }
    const hier::StageChoice& top = plan->stages.at(h.levels());
    const bool offloaded = top.algo && (top.algo->traits & hier::kTraitFabric);
    // The offload group is the unrooted leader space, joined once at setup: the root first
    // hands the message to its outermost group's leader, and every stage runs unrooted
    // below it (the root receives its own bytes back; they are the same bytes).
    const int stageRoot = offloaded ? h.leaderOf(h.levels() - 1, a.root, -1) : a.root;
    if (offloaded && stageRoot != a.root) {
        const uint32_t ch = stageChannel(static_cast<uint32_t>(h.levels() + 1));
        if (c.rank == a.root) ready = b.join({ready, b.send(stageRoot, buf, type, ready, ch)});
        if (c.rank == stageRoot) ready = b.recv(a.root, buf, type, ready, ch);
    }
    for (int level = h.levels(); level >= 0; --level) {
        hier::SpaceGroup sg = hier::spaceGroup(h, level, c.rank, stageRoot);
        const hier::StageChoice& s = plan->stages.at(level);
        if (level == h.levels() && offloaded && top.algo->shape == TreeShape::Kind::Chain) {
            if (sg.group.me < 0 || sg.group.size() <= 1) continue;
            b.appendAlgorithm("leaders:ofi-triggered-chain");
            // Relays receive into and forward from the packed stream in place: the user's
            // buffer when it is contiguous (or already the segmented stream), else a temporary
            // the stage's root packs into and the others unpack from. Every member cuts the
            // same segments (count and segment are the same everywhere).
            const bool inPlace = segmented || contiguous;
            const BufRef stream = inPlace ? buf : b.temp(totalBytes);
            const TypeRef packed{kPackedType, totalBytes};
            StepId have = ready;
            if (!inPlace && sg.group.me == sg.rootIdx) have = b.copy(buf, type, stream, packed, ready);
            have = b.collective(static_cast<uint8_t>(FabricKind::TriggeredChainBcast), stream, stream, totalBytes,
                                sg.rootIdx, have, top.segmentBytes);
            ready = inPlace || sg.group.me == sg.rootIdx ? have : b.copy(stream, packed, buf, type, have);
            continue;
        }
        if (level == h.levels() && offloaded) {
            if (sg.group.me < 0 || sg.group.size() <= 1) continue;
            b.appendAlgorithm("leaders:ofi-bcast");
            // The provider's broadcast is a scatter plus an allgather of equal chunks: pieces
            // of at most maxBytes (CollCall.hpp), each a multiple of the members (the last
            // one padded), one operation per piece, in order.
            const size_t n = static_cast<size_t>(sg.group.size());
            const size_t piece = std::max<size_t>(n, std::min(c.offload->maxBytes, totalBytes + n) / n * n);
            const size_t pieces = (totalBytes + piece - 1) / piece;
            const size_t last = totalBytes - (pieces - 1) * piece;
            const BufRef wire = b.temp((pieces - 1) * piece + (last + n - 1) / n * n);
            const TypeRef packed{kPackedType, totalBytes};
            StepId have = ready;
            if (sg.group.me == sg.rootIdx) have = b.copy(buf, type, wire, packed, ready);
            for (size_t k = 0; k < pieces; ++k) {
                const size_t bytes = k + 1 < pieces ? piece : (last + n - 1) / n * n;
                const BufRef at = wire.at(static_cast<ptrdiff_t>(k * piece));
                have = b.collective(static_cast<uint8_t>(FabricKind::Bcast), at, at, bytes, sg.rootIdx, have);
            }
            ready = sg.group.me == sg.rootIdx ? have : b.copy(wire, packed, buf, type, have);
            continue;
        }
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
