#include "PipelinedTree.hpp"

#include <algorithm>
#include <string>

#include "hieragg/algorithms/OrderedTreeReduce.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "hieragg/hier/PipelineTree.hpp"

namespace hieragg::recipes {

namespace {
MemberTree treeOf(const CollCall& c, const hier::StageChoice& s, int root) {
    return hier::pipelineTree(*c.hierarchy, root, TreeShape::chain(), s.shape);
}
std::string nameOf(const hier::StageChoice& s, size_t fragments, size_t seg) {
    const std::string inner =
        s.shape.kind == TreeShape::Kind::Chain ? "chain" : s.shape.name() + "(k=" + std::to_string(s.shape.k) + ")";
    return "hier_pipeline(chain+" + inner + ",frag=" + std::to_string(seg) + "x" + std::to_string(fragments) + ")";
}
}  // namespace

Schedule pipelinedBcast(const CollCall& c, const hier::StageChoice& s) {
    const auto& a = c.args;
    ScheduleBuilder b;
    const size_t totalBytes = a.rcount * c.rtype.size;
    if (totalBytes == 0 || c.size <= 1) {
        b.appendAlgorithm("hier_pipeline(empty)");
        return b.finish();
    }
    // Fragments are cut from the packed byte stream, the one thing ranks with different
    // datatypes (same signature) agree on. Contiguous buffers are their own stream; others
    // pack into a whole-message temporary on the root and unpack at the end (not bounded
    // by the window: the datatype cannot be cut at arbitrary bytes).
    const bool contiguous = c.rtype.extent == static_cast<ptrdiff_t>(c.rtype.size) && c.rtype.true_lb == 0 &&
                            c.rtype.true_extent == static_cast<ptrdiff_t>(c.rtype.size);
    const TypeRef user{kRecvType, a.rcount};
    BufRef stream{kRecvBuf, 0};
    StepId ready = kNoStep;
    if (!contiguous) {
        stream = b.temp(totalBytes);
        if (c.rank == a.root) ready = b.copy(BufRef{kRecvBuf, 0}, user, stream, {kPackedType, totalBytes});
    }
    const size_t seg = std::min(std::max<size_t>(s.segmentBytes, 1), totalBytes);
    FragmentPipeline p = FragmentPipeline::of(totalBytes, seg, kFragmentWindow);
    p.setStride(stream.slot, static_cast<ptrdiff_t>(seg), false);
    b.appendAlgorithm(nameOf(s, p.fragments, seg));
    const MemberTree t = treeOf(c, s, a.root);
    b.beginFragment();
    const Emitted e = TreeBcast{t, 0}.emit(b, Group::whole(c.size, c.rank), stream, {kPackedType, seg}, 1, ready,
                                           {}, stageChannel(0));
    b.endFragment(std::move(p));
    if (!contiguous && c.rank != a.root) b.copy(stream, {kPackedType, totalBytes}, BufRef{kRecvBuf, 0}, user, e.ready);
    return b.finish();
}

namespace {
// Reduce (and, for allreduce, broadcast back down the same tree) one fragment template.
Schedule reduceFragments(const CollCall& c, const hier::StageChoice& s, bool all) {
    const auto& a = c.args;
    ScheduleBuilder b;
    const int root = all ? 0 : a.root;
    const bool isRoot = c.rank == root;
    // MPI_IN_PLACE: the input is in rbuf (allreduce: on every rank; reduce: at the root).
    const BufRef input{a.in_place && (all || isRoot) ? kRecvBuf : kSendBuf, 0};
    if (a.rcount == 0 || c.rtype.size == 0) {
        b.appendAlgorithm("hier_pipeline(empty)");
        return b.finish();
    }
    if (c.size <= 1) {
        b.appendAlgorithm("hier_pipeline(one rank)");
        if ((all || isRoot) && input.slot != kRecvBuf)
            b.copy(input, {kRecvType, a.rcount}, BufRef{kRecvBuf, 0}, {kRecvType, a.rcount});
        return b.finish();
    }
    const size_t perFragment = std::min(a.rcount, std::max<size_t>(1, s.segmentBytes / c.rtype.size));
    FragmentPipeline p = FragmentPipeline::of(a.rcount, perFragment, kFragmentWindow);
    const auto stride = static_cast<ptrdiff_t>(perFragment) * c.rtype.extent;
    p.setStride(kSendBuf, stride, false);
    p.setStride(kRecvBuf, stride, false);
    b.appendAlgorithm(nameOf(s, p.fragments, perFragment * c.rtype.size));

    const MemberTree t = treeOf(c, s, root);
    OrderedTreeReduce red;
    red.tree = &t;
    const Group g = Group::whole(c.size, c.rank);
    // Scratch: one ring of `window` fragment slots per child (fragment f uses slot f mod window).
    const size_t slotBytes = CollCall::span(c.rtype, perFragment);
    OrderedTreeReduce::Pulse pulse;
    for (int i = 0; i < red.scratchCount(g, root); ++i) {
        const BufRef r = b.temp(slotBytes * p.window, CollCall::bias(c.rtype));
        p.setStride(r.slot, static_cast<ptrdiff_t>(slotBytes), true);
        pulse.scratch.push_back(r);
    }
    pulse.input = input;
    pulse.type = {kRecvType, perFragment};
    const BufRef out{kRecvBuf, 0};
    pulse.out = isRoot ? &out : nullptr;
    pulse.channel = stageChannel(0);
    b.beginFragment();
    const OrderedTreeReduce::Result r = red.emit(b, g, root, pulse);
    if (all) {
        // Down the same tree into rbuf; a receive waits until this rank's own part of the
        // fragment has left (in place, rbuf is the input).
        TreeBcast{t, 0}.emit(b, g, out, pulse.type, c.rtype.extent, isRoot ? r.ready : kNoStep, r.done,
                             stageChannel(1));
    }
    b.endFragment(std::move(p));
    return b.finish();
}
}  // namespace

Schedule pipelinedReduce(const CollCall& c, const hier::StageChoice& s) { return reduceFragments(c, s, false); }

Schedule pipelinedAllreduce(const CollCall& c, const hier::StageChoice& s) { return reduceFragments(c, s, true); }

}  // namespace hieragg::recipes
