#include "hieragg/algorithms/TreeGather.hpp"

namespace hieragg {

size_t virtualRangeBytes(const MemberTree& tree, const std::vector<size_t>& memberBytes, int from, int to) {
    size_t sum = 0;
    for (int v = from; v < to; ++v) sum += memberBytes[tree.indexOf(v)];
    return sum;
}

size_t subtreeBytes(const MemberTree& tree, const std::vector<size_t>& memberBytes, int v) {
    return virtualRangeBytes(tree, memberBytes, v, tree.subtreeEnd[v]);
}

std::optional<TreePlace> placeIn(const MemberTree& tree, const Group& g) {
    if (g.size() <= 1 || g.me < 0) return std::nullopt;
    return TreePlace{tree.virtualOf(g.me), tree.parent[g.me], tree.children[g.me]};
}

size_t subtreeWorkBytes(const MemberTree& tree, const Group& g, const std::vector<size_t>& memberBytes,
                        bool leavesKeepWork) {
    const std::optional<TreePlace> at = placeIn(tree, g);
    if (!at || (at->v != 0 && !leavesKeepWork && at->kids.empty())) return 0;
    return subtreeBytes(tree, memberBytes, at->v);
}

SubtreeSlice childSlice(const MemberTree& tree, const std::vector<size_t>& memberBytes, int v, int kid) {
    const int c = tree.virtualOf(kid);
    return {static_cast<ptrdiff_t>(virtualRangeBytes(tree, memberBytes, v, c)), subtreeBytes(tree, memberBytes, c)};
}

size_t TreeGather::workBytes(const Group& g, const std::vector<size_t>& memberBytes) const {
    return subtreeWorkBytes(tree, g, memberBytes, false);
}

Emitted TreeGather::emit(ScheduleBuilder& b, const Group& g, const std::vector<size_t>& memberBytes,
                         Block mine, bool mineInWork, BufRef work, StepId after, uint32_t channel) const {
    const std::optional<TreePlace> at = placeIn(tree, g);
    if (!at) return {after, after};
    const auto& [v, parent, kids] = *at;
    if (v != 0 && kids.empty()) {
        StepId sent = mineInWork ? b.send(g.ranks[parent], work, {kPackedType, memberBytes[g.me]}, after, channel)
                                 : b.send(g.ranks[parent], mine.buf, mine.type, after, channel);
        return {sent, sent};
    }
    Deps have;
    have.add(after);
    if (!mineInWork) have.add(b.copy(mine.buf, mine.type, work, {kPackedType, memberBytes[g.me]}, after));
    // Children's regions are disjoint from this rank's own bytes, so their
    // receives can be posted before `after` (overlap with earlier levels).
    // Largest subtree first, as the data arrives in that order on a k-nomial tree.
    for (size_t i = kids.size(); i-- > 0;) {
        const SubtreeSlice s = childSlice(tree, memberBytes, v, kids[i]);
        have.add(b.recv(g.ranks[kids[i]], work.at(s.offset), {kPackedType, s.bytes}, {}, channel));
    }
    StepId all = b.join(have);
    if (v == 0) return {all, all};
    const size_t total = subtreeBytes(tree, memberBytes, v);
    StepId sent = b.send(g.ranks[parent], work, {kPackedType, total}, all, channel);
    return {sent, sent};
}

}  // namespace hieragg
