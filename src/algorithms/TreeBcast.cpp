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
    Deps allReady, allDone;
    for (size_t s = 0; s < nseg; ++s) {
        const size_t first = s * seg;
        const TypeRef t{type.type, total == 0 ? 0 : std::min(seg, total - first)};
        const BufRef part = buf.at(static_cast<ptrdiff_t>(first) * extent);
        const uint32_t ch = nseg > 1 ? segmentChannel(channel, s) : channel;
        StepId have = after;
        if (parent >= 0) have = b.recv(g.ranks[parent], part, t, gate, ch);
        allReady.add(have);
        allDone.add(have);
        // Largest virtual subtree first: the deepest paths start earliest.
        for (size_t i = kids.size(); i-- > 0;) allDone.add(b.send(g.ranks[kids[i]], part, t, have, ch));
    }
    return {b.join(allReady), b.join(allDone)};
}

double TreeBcast::optimalChainSegmentBytes(double m, int n, double ts, double bw) {
    if (n <= 2) return m;
    return std::sqrt(m * ts * bw / (n - 2));
}

}  // namespace hieragg
