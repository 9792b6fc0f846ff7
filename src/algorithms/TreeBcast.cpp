#include "hieragg/algorithms/TreeBcast.hpp"

#include <algorithm>
#include <cmath>

namespace hieragg {

Emitted TreeBcast::emit(ScheduleBuilder& b, const Group& g, BufRef buf, TypeRef type, ptrdiff_t extent,
                        StepId after, const Deps& gate, uint32_t channel) const {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return {after, after};
    const int parent = tree.parent[g.me];
    const std::vector<int>& kids = tree.children[g.me];
    const size_t total = type.count;
    size_t seg = segmentCount == 0 || segmentCount >= total ? (total ? total : 1) : segmentCount;
    seg = std::max(seg, (total + kMaxSegments - 1) / kMaxSegments);
    const size_t nseg = total == 0 ? 1 : (total + seg - 1) / seg;
    // Several segments: segment 0's steps are a fragment template the Task runs once per
    // segment (Schedule.hpp), all of them in flight at once as they would be unrolled.
    if (nseg > 1) b.beginFragment();
    const TypeRef t{type.type, std::min(seg, total)};
    StepId have = after;
    if (parent >= 0) have = b.recv(g.ranks[parent], buf, t, gate, channel);
    Deps allDone{have};
    // Largest virtual subtree first: the deepest paths start earliest.
    for (size_t i = kids.size(); i-- > 0;) allDone.add(b.send(g.ranks[kids[i]], buf, t, have, channel));
    const StepId done = b.join(allDone);
    if (nseg > 1) {
        FragmentPipeline p = FragmentPipeline::of(total, seg, nseg);
        p.setStride(buf.slot, static_cast<ptrdiff_t>(seg) * extent, false);
        b.endFragment(std::move(p));
    }
    return {have, done};
}

double TreeBcast::optimalChainSegmentBytes(double m, int n, double ts, double bw) {
    if (n <= 2) return m;
    return std::sqrt(m * ts * bw / (n - 2));
}

}  // namespace hieragg
