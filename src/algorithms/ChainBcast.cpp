#include "hieragg/algorithms/ChainBcast.hpp"

#include <algorithm>
#include <cmath>

namespace hieragg {

Emitted ChainBcast::emit(ScheduleBuilder& b, const Group& g, int rootIdx, BufRef buf, TypeRef type,
                         ptrdiff_t extent, StepId after, uint32_t channel) const {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return {after, after};
    const int v = (g.me - rootIdx + n) % n;
    const int left = v == 0 ? -1 : g.ranks[(g.me - 1 + n) % n];
    const int right = v == n - 1 ? -1 : g.ranks[(g.me + 1) % n];
    const size_t total = type.count;
    size_t seg = segmentCount == 0 || segmentCount >= total ? (total ? total : 1) : segmentCount;
    seg = std::max(seg, (total + kMaxSegments - 1) / kMaxSegments);
    const size_t nseg = total == 0 ? 1 : (total + seg - 1) / seg;
    Deps ready, done;
    for (size_t s = 0; s < nseg; ++s) {
        const size_t first = s * seg;
        TypeRef t{type.type, total == 0 ? 0 : std::min(seg, total - first)};
        BufRef part = buf.at(static_cast<ptrdiff_t>(first) * extent);
        StepId have = left >= 0 ? b.recv(left, part, t, {}, segmentChannel(channel, s)) : after;
        ready.add(have);
        done.add(have);
        if (right >= 0) done.add(b.send(right, part, t, have, segmentChannel(channel, s)));
    }
    return {b.join(ready), b.join(done)};
}

double ChainBcast::optimalSegmentBytes(double m, int n, double ts, double bw) {
    if (n <= 2) return m;
    return std::sqrt(m * ts * bw / (n - 2));
}

}  // namespace hieragg
