#include "hieragg/algorithms/TreeScatter.hpp"

#include "hieragg/algorithms/TreeGather.hpp"

namespace hieragg {

size_t TreeScatter::workBytes(const Group& g, const std::vector<size_t>& memberBytes, bool keepInWork) const {
    return subtreeWorkBytes(tree, g, memberBytes, keepInWork);
}

Emitted TreeScatter::emit(ScheduleBuilder& b, const Group& g, const std::vector<size_t>& memberBytes,
                          Block mine, bool keepInWork, BufRef work, StepId after, uint32_t channel) const {
    const std::optional<TreePlace> at = placeIn(tree, g);
    if (!at) return {after, after};
    const auto& [v, parent, kids] = *at;
    StepId have = after;
    StepId ready = after;
    if (v != 0) {
        if (kids.empty() && !keepInWork) {
            StepId got = b.recv(g.ranks[parent], mine.buf, mine.type, after, channel);
            return {got, got};
        }
        const size_t total = subtreeBytes(tree, memberBytes, v);
        have = b.recv(g.ranks[parent], work, {kPackedType, total}, after, channel);
        ready = have;
    }
    // A member that scatters further down keeps its piece packed; the rest unpack it now.
    if (!keepInWork) ready = b.copy(work, {kPackedType, memberBytes[g.me]}, mine.buf, mine.type, have);
    Deps done;
    done.add(ready);
    // Largest subtree first: the deepest paths start earliest.
    for (size_t i = kids.size(); i-- > 0;) {
        const SubtreeSlice s = childSlice(tree, memberBytes, v, kids[i]);
        done.add(b.send(g.ranks[kids[i]], work.at(s.offset), {kPackedType, s.bytes}, have, channel));
    }
    return {ready, b.join(done)};
}

}  // namespace hieragg
