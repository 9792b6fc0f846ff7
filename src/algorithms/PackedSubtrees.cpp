#include "hieragg/algorithms/PackedSubtrees.hpp"

namespace hieragg {

std::optional<TreePlace> PackedSubtrees::place() const {
    if (g.size() <= 1 || g.me < 0) return std::nullopt;
    return TreePlace{tree.virtualOf(g.me), tree.parent[g.me], tree.children[g.me]};
}

size_t PackedSubtrees::rangeBytes(int from, int to) const {
    size_t sum = 0;
    for (int v = from; v < to; ++v) sum += memberBytes[tree.indexOf(v)];
    return sum;
}

size_t PackedSubtrees::subtreeBytes(int v) const { return rangeBytes(v, tree.subtreeEnd[v]); }

SubtreeSlice PackedSubtrees::childSlice(int v, int kid) const {
    const int c = tree.virtualOf(kid);
    return {static_cast<ptrdiff_t>(rangeBytes(v, c)), subtreeBytes(c)};
}

size_t PackedSubtrees::workBytes(bool leafKeepsWork) const {
    const std::optional<TreePlace> at = place();
    if (!at || (at->v != 0 && !leafKeepsWork && at->kids.empty())) return 0;
    return subtreeBytes(at->v);
}

Emitted PackedSubtrees::gather(ScheduleBuilder& b, Block mine, bool mineInWork, BufRef work, StepId after,
                               uint32_t channel) const {
    const std::optional<TreePlace> at = place();
    if (!at) return {after, after};
    const auto& [v, parent, kids] = *at;
    const TypeRef minePacked{kPackedType, memberBytes[g.me]};
    if (v != 0 && kids.empty()) {
        StepId sent = mineInWork ? b.send(g.ranks[parent], work, minePacked, after, channel)
                                 : b.send(g.ranks[parent], mine.buf, mine.type, after, channel);
        return {sent, sent};
    }
    Deps have;
    have.add(after);
    if (!mineInWork) have.add(b.copy(mine.buf, mine.type, work, minePacked, after));
    // Children's regions are disjoint from this rank's own bytes, so their
    // receives can be posted before `after` (overlap with earlier levels).
    // Largest subtree first, as the data arrives in that order on a k-nomial tree.
    for (size_t i = kids.size(); i-- > 0;) {
        const SubtreeSlice s = childSlice(v, kids[i]);
        have.add(b.recv(g.ranks[kids[i]], work.at(s.offset), {kPackedType, s.bytes}, {}, channel));
    }
    StepId all = b.join(have);
    if (v == 0) return {all, all};
    const size_t total = subtreeBytes(v);
    StepId sent = b.send(g.ranks[parent], work, {kPackedType, total}, all, channel);
    return {sent, sent};
}

Emitted PackedSubtrees::scatter(ScheduleBuilder& b, Block mine, bool keepInWork, BufRef work, StepId after,
                                uint32_t channel) const {
    const std::optional<TreePlace> at = place();
    if (!at) return {after, after};
    const auto& [v, parent, kids] = *at;
    StepId have = after;
    StepId ready = after;
    if (v != 0) {
        if (kids.empty() && !keepInWork) {
            StepId got = b.recv(g.ranks[parent], mine.buf, mine.type, after, channel);
            return {got, got};
        }
        const size_t total = subtreeBytes(v);
        have = b.recv(g.ranks[parent], work, {kPackedType, total}, after, channel);
        ready = have;
    }
    // A member that scatters further down keeps its piece packed; the rest unpack it now.
    if (!keepInWork) ready = b.copy(work, {kPackedType, memberBytes[g.me]}, mine.buf, mine.type, have);
    Deps done;
    done.add(ready);
    // Largest subtree first: the deepest paths start earliest.
    for (size_t i = kids.size(); i-- > 0;) {
        const SubtreeSlice s = childSlice(v, kids[i]);
        done.add(b.send(g.ranks[kids[i]], work.at(s.offset), {kPackedType, s.bytes}, have, channel));
    }
    return {ready, b.join(done)};
}

}  // namespace hieragg
