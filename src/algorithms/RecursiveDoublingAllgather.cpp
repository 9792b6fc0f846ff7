#include "hieragg/algorithms/RecursiveDoublingAllgather.hpp"

namespace hieragg {

Emitted RecursiveDoublingAllgather::emit(ScheduleBuilder& b, const Group& g, BufRef base, uint32_t elemType,
                                         size_t count, ptrdiff_t stride, StepId after, uint32_t channel) const {
    const int n = g.size(), me = g.me;
    if (n <= 1 || me < 0) return {after, after};
    Deps all{after};
    StepId have = after;
    for (int d = 1; d < n; d *= 2) {
        const int peer = me ^ d;
        const int mine = me & ~(d - 1), theirs = peer & ~(d - 1);
        const TypeRef t{elemType, count * static_cast<size_t>(d)};
        all.add(b.send(g.ranks[peer], base.at(mine * stride), t, have, channel));
        have = b.recv(g.ranks[peer], base.at(theirs * stride), t, have, channel);
        all.add(have);
    }
    return {have, b.join(all)};
}

}  // namespace hieragg
