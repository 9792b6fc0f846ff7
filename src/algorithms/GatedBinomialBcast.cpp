#include "hieragg/algorithms/GatedBinomialBcast.hpp"

#include "hieragg/algorithms/OrderedBinomialReduce.hpp"

namespace hieragg {

Emitted GatedBinomialBcast::emit(ScheduleBuilder& b, const Group& g, int rootIdx, BufRef buf, TypeRef type,
                                 StepId have, const Deps& gate, uint32_t channel) const {
    if (g.me < 0 || g.size() <= 1) return {have, have};
    const BinomialTree t = BinomialTree::of(g.size(), g.me, rootIdx);
    StepId ready = have;
    if (t.parent >= 0) ready = b.recv(g.ranks[t.parent], buf, type, gate, channel);
    Deps done{ready};
    // Largest subtree first: the deepest paths start earliest.
    for (size_t i = t.children.size(); i-- > 0;) done.add(b.send(g.ranks[t.children[i]], buf, type, ready, channel));
    return {ready, b.join(done)};
}

}  // namespace hieragg
