#include "hieragg/algorithms/RingAllgather.hpp"

namespace hieragg {

Emitted RingAllgather::emit(ScheduleBuilder& b, const Group& g, const std::vector<Block>& blocks,
                            StepId after, uint32_t channel, const Deps& regionsFree) const {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return {after, after};
    const int right = g.next(), left = g.previous();
    Deps all;
    all.add(after);
    StepId have = after;
    for (int s = 0; s + 1 < n; ++s) {
        const Block& out = blocks[(g.me - s + n) % n];
        const Block& in = blocks[(g.me - s - 1 + 2 * n) % n];
        const uint32_t ch = segmentChannel(channel, static_cast<size_t>(s));
        all.add(b.send(right, out.buf, out.type, have, ch));
        have = b.recv(left, in.buf, in.type, regionsFree, ch);
        all.add(have);
    }
    StepId done = b.join(all);
    return {done, done};
}

}  // namespace hieragg
