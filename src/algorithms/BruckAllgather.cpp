#include "hieragg/algorithms/BruckAllgather.hpp"

#include <algorithm>

namespace hieragg {

Emitted BruckAllgather::emit(ScheduleBuilder& b, const Group& g, BufRef own, TypeRef ownType, BufRef out,
                             uint32_t elemType, size_t count, ptrdiff_t stride, BufRef scratch, StepId after,
                             uint32_t channel) const {
    const int n = g.size(), me = g.me;
    if (me < 0) return {after, after};
    auto blocks = [&](int k) { return TypeRef{elemType, count * static_cast<size_t>(k)}; };
    Deps all{after};
    StepId have = b.copy(own, ownType, scratch, blocks(1), after);  // slot 0: my block
    all.add(have);
    int step = 0;
    for (int d = 1; d < n; d *= 2, ++step) {
        const int k = std::min(d, n - d);
        const uint32_t ch = segmentChannel(channel, static_cast<size_t>(step));
        all.add(b.send(g.ranks[(me - d + n) % n], scratch, blocks(k), have, ch));
        have = b.join({have, b.recv(g.ranks[(me + d) % n], scratch.at(d * stride), blocks(k), {}, ch)});
        all.add(have);
    }
    // Slot j holds member (me + j) mod n: slots [0, n - me) go to [me, n), the rest to [0, me).
    const int tail = n - me;
    all.add(b.copy(scratch, blocks(tail), out.at(me * stride), blocks(tail), have));
    StepId done = have;
    if (me > 0) done = b.copy(scratch.at(tail * stride), blocks(me), out, blocks(me), have);
    all.add(done);
    const StepId fin = b.join(all);
    return {fin, fin};
}

}  // namespace hieragg
