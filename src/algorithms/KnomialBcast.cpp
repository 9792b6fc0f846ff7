#include "hieragg/algorithms/KnomialBcast.hpp"

#include <algorithm>
#include <vector>

namespace hieragg {

Emitted KnomialBcast::emit(ScheduleBuilder& b, const Group& g, int rootIdx, BufRef buf, TypeRef type,
                           ptrdiff_t extent, StepId after, uint32_t channel) const {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return {after, after};
    const int k = radix < 2 ? 2 : radix;
    const int v = (g.me - rootIdx + n) % n;
    auto rankOf = [&](int vr) { return g.ranks[(vr + rootIdx) % n]; };

    // Parent: clear the lowest non-zero base-k digit. Children: set one of the
    // lower digits, biggest subtrees first so the deep paths start early.
    int parent = -1;
    long span = 1;
    while (span < n) {
        if ((v / span) % k != 0) {
            parent = v - static_cast<int>(((v / span) % k) * span);
            break;
        }
        span *= k;
    }
    std::vector<int> children;
    for (long s = span / k; s >= 1; s /= k)
        for (int j = k - 1; j >= 1; --j)
            if (v + j * s < n) children.push_back(static_cast<int>(v + j * s));

    const size_t total = type.count;
    const size_t seg = segmentCount == 0 || segmentCount >= total ? (total ? total : 1) : segmentCount;
    const size_t nseg = total == 0 ? 1 : (total + seg - 1) / seg;
    Deps allReady, allDone;
    for (size_t s = 0; s < nseg; ++s) {
        const size_t first = s * seg;
        const size_t cnt = total == 0 ? 0 : std::min(seg, total - first);
        BufRef part = buf.at(static_cast<ptrdiff_t>(first) * extent);
        TypeRef t{type.type, cnt};
        StepId have = after;
        if (parent >= 0) have = b.recv(rankOf(parent), part, t, {}, segmentChannel(channel, s));
        allReady.add(have);
        allDone.add(have);
        for (int c : children) allDone.add(b.send(rankOf(c), part, t, have, segmentChannel(channel, s)));
    }
    StepId ready = b.join(allReady);
    return {ready, b.join(allDone)};
}

}  // namespace hieragg
