#include "hieragg/algorithms/ButterflyAllreduce.hpp"

namespace hieragg {

size_t ButterflyAllreduce::scratchElements(int n, size_t count) const {
    if (n <= 1) return 0;
    // The fold receives a whole vector; recursive halving at most half of it (rounded up).
    if (butterflyCore(n) != n || kind == Kind::RecursiveDoubling) return count;
    return VectorBlocks{count, static_cast<size_t>(n)}.first(static_cast<size_t>(n / 2));  // the lower half
}

Emitted ButterflyAllreduce::emit(ScheduleBuilder& b, const Group& g, BufRef acc, uint32_t elemType, size_t count,
                                 ptrdiff_t extent, BufRef scratch, StepId after, uint32_t channel) const {
    const int n = g.size();
    if (n <= 1 || g.me < 0 || count == 0) return {after, after};
    const int p2 = butterflyCore(n), r = n - p2, me = g.me;
    const TypeRef whole{elemType, count};
    const uint32_t foldCh = channel, xchCh = channel + 1, gatherCh = channel + 2;
    Deps all;
    all.add(after);

    // Fold: odd members of the first 2r hand their vector to the even one below.
    if (me < 2 * r && me % 2 == 1) {
        all.add(b.send(g.ranks[me - 1], acc, whole, after, foldCh));
        const StepId got = b.recv(g.ranks[me - 1], acc, whole, b.join(all), gatherCh);
        return {got, b.join({got, b.join(all)})};
    }
    StepId have = after;
    if (me < 2 * r) {
        const StepId got = b.recv(g.ranks[me + 1], scratch, whole, after, foldCh);
        have = b.reduce(scratch, acc, whole, Deps{got, after});
        all.add(have);
    }
    const int v = me < 2 * r ? me / 2 : me - r;
    auto rankOf = [&](int virt) { return g.ranks[virt < r ? 2 * virt : virt + r]; };

    if (kind == Kind::RecursiveDoubling) {
        for (int d = 1; d < p2; d *= 2) {
            const int peer = rankOf(v ^ d);
            all.add(b.send(peer, acc, whole, have, xchCh));
            const StepId got = b.recv(peer, scratch, whole, have, xchCh);
            have = b.reduce(scratch, acc, whole, Deps{got, have, b.join(all)});
            all.add(have);
        }
    } else {
        const VectorBlocks vb{count, static_cast<size_t>(p2)};
        auto region = [&](int lo) { return acc.at(static_cast<ptrdiff_t>(vb.first(lo)) * extent); };
        auto typed = [&](int lo, int hi) { return TypeRef{elemType, vb.span(lo, hi)}; };
        int lo = 0, hi = p2;
        for (int d = p2 / 2; d >= 1; d /= 2) {
            const int peer = rankOf(v ^ d);
            const int mid = lo + (hi - lo) / 2;
            const int keepLo = (v & d) ? mid : lo, keepHi = (v & d) ? hi : mid;
            const int sendLo = (v & d) ? lo : mid, sendHi = (v & d) ? mid : hi;
            all.add(b.send(peer, region(sendLo), typed(sendLo, sendHi), have, xchCh));
            const StepId got = b.recv(peer, scratch, typed(keepLo, keepHi), have, xchCh);
            have = b.reduce(scratch, region(keepLo), typed(keepLo, keepHi), Deps{got, have});
            all.add(have);
            lo = keepLo, hi = keepHi;
        }
        // Recursive doubling of the reduced blocks; receives overwrite regions sent above.
        have = b.join(all);
        for (int d = 1; d < p2; d *= 2) {
            const int peer = rankOf(v ^ d);
            const int mineLo = v & ~(d - 1), theirsLo = (v ^ d) & ~(d - 1);
            all.add(b.send(peer, region(mineLo), typed(mineLo, mineLo + d), have, gatherCh));
            have = b.recv(peer, region(theirsLo), typed(theirsLo, theirsLo + d), have, gatherCh);
            all.add(have);
        }
    }
    // Unfold: the odd partner of the fold gets the result.
    if (me < 2 * r) all.add(b.send(g.ranks[me + 1], acc, whole, have, gatherCh));
    return {have, b.join(all)};
}

}  // namespace hieragg
