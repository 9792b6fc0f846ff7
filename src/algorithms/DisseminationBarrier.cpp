#include "hieragg/algorithms/DisseminationBarrier.hpp"

namespace hieragg {

StepId DisseminationBarrier::emit(ScheduleBuilder& b, const Group& g, const Deps& after, uint32_t channel) const {
    const int n = g.size();
    if (g.me < 0 || n <= 1) return b.join(after);
    Deps prev = after;
    Deps sends;
    uint32_t round = 0;
    for (int dist = 1; dist < n; dist <<= 1, ++round) {
        const TypeRef none{kPackedType, 0};
        sends.add(b.send(g.ranks[(g.me + dist) % n], {kRecvBuf, 0}, none, prev, channel + round));
        prev = b.recv(g.ranks[(g.me - dist + n) % n], {kRecvBuf, 0}, none, prev, channel + round);
    }
    Deps all = sends;
    all.add(prev);
    return b.join(all);
}

}  // namespace hieragg
