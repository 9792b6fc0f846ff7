#include "hieragg/algorithms/RingReduceScatter.hpp"

namespace hieragg {

Emitted RingReduceScatter::emit(ScheduleBuilder& b, const Group& g, const std::vector<Block>& blocks,
                                BufRef scratch, StepId after, uint32_t channel) const {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return {after, after};
    const int right = g.next(), left = g.previous();
    Deps all;
    all.add(after);
    StepId reduced = after;  // the block sent next is complete
    for (int s = 0; s + 1 < n; ++s) {
        const Block& out = blocks[((g.me - s - 1) % n + n) % n];
        const Block& in = blocks[((g.me - s - 2) % n + 2 * n) % n];
        all.add(b.send(right, out.buf, out.type, reduced, channel));
        // After the previous reduction: the scratch is free and receives post in step order.
        const StepId got = b.recv(left, scratch, in.type, reduced, channel);
        reduced = b.reduce(scratch, in.buf, in.type, Deps{got, reduced});
        all.add(reduced);
    }
    return {reduced, b.join(all)};
}

Emitted RingReduceScatter::emitToOutput(ScheduleBuilder& b, const Group& g, const std::vector<Block>& input,
                                        const Block& out, const BufRef scratch[2], StepId after, const Deps& outFree,
                                        uint32_t channel) const {
    const int n = g.size();
    if (g.me < 0) return {after, after};
    Deps outReady = outFree;
    outReady.add(after);
    const StepId placed = b.copy(input[g.me].buf, input[g.me].type, out.buf, out.type, outReady);
    if (n <= 1) return {placed, placed};
    const int right = g.next(), left = g.previous();
    Deps all{placed};
    // Step 0 sends this rank's own piece of block me - 1; step s >= 1 forwards the partial
    // built at step s - 1 (in scratch[(s - 1) % 2]).
    StepId sent = b.send(right, input[(g.me + n - 1) % n].buf, input[(g.me + n - 1) % n].type, after, channel);
    all.add(sent);
    StepId built = after;
    StepId lastSendOf[2] = {after, after};  // the send that last read each scratch piece
    for (int s = 0; s + 1 < n; ++s) {
        const BufRef x = scratch[s % 2];
        const Block& in = input[((g.me - s - 2) % n + 2 * n) % n];
        // scratch[s % 2] was last read by step s - 2's send; receives post in step order.
        // Never after this rank's own latest send: with rendezvous-sized pieces every rank
        // would wait for its right neighbour's receive, and none would post one.
        const StepId got = b.recv(left, x, in.type, Deps{built, lastSendOf[s % 2]}, channel);
        if (s + 2 < n) {
            built = b.reduce(in.buf, x, in.type, Deps{got});  // partial = mine op received
            sent = b.send(right, x, in.type, built, channel);
            lastSendOf[s % 2] = sent;
            all.add(sent);
        } else {
            built = b.reduce(x, out.buf, out.type, Deps{got, placed});  // out = received op mine
        }
        all.add(built);
    }
    return {built, b.join(all)};
}

}  // namespace hieragg
