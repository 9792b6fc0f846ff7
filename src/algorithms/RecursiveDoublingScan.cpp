#include "hieragg/algorithms/RecursiveDoublingScan.hpp"

namespace hieragg {

StepId RecursiveDoublingScan::emit(ScheduleBuilder& b, const Group& g, const Pulse& p) const {
    const int n = g.size();
    const int me = g.me;
    if (me < 0) return kNoStep;
    const bool inPlace = p.input.slot == p.out.slot && p.input.offset == p.out.offset;
    // partial: the inclusive product of [me - 2^k + 1, me], sent right each step.
    // Inclusive scan keeps it in `out`; exclusive keeps it in scratch[1] and `out`
    // collects only what arrives from the left.
    BufRef partial = exclusive ? p.scratch[1] : p.out;
    StepId partialReady = kNoStep;
    Deps all;
    if (!(inPlace && !exclusive)) partialReady = b.copy(p.input, p.type, partial, p.type, p.scratchFree);
    else partialReady = b.join(p.scratchFree);
    all.add(partialReady);
    StepId outReady = kNoStep;
    bool outEmpty = true;  // exclusive: nothing from the left yet
    for (int dist = 1; dist < n; dist <<= 1) {
        StepId sent = kNoStep;
        if (me + dist < n) sent = b.send(g.ranks[me + dist], partial, p.type, partialReady, p.channel);
        all.add(sent);
        if (me - dist < 0) continue;
        const int left = g.ranks[me - dist];
        // Does `partial` still have to travel right in a later step?
        const bool partialNeeded = !exclusive || me + 2 * dist < n;
        if (exclusive && outEmpty) {
            // First block from the left goes straight into out; out = block, partial = block op partial.
            Deps d = p.scratchFree;
            d.add(partialReady);  // in place: input was copied out of `out` first
            outReady = b.recv(left, p.out, p.type, d, p.channel);
            outEmpty = false;
            if (partialNeeded) partialReady = b.reduce(p.out, partial, p.type, {outReady, sent, partialReady});
        } else {
            BufRef block = p.scratch[0];
            // scratch[0] is free once the previous step's combines have read it.
            StepId got = b.recv(left, block, p.type, {partialReady, outReady}, p.channel);
            if (exclusive) outReady = b.reduce(block, p.out, p.type, {got, outReady});
            // The send of this step reads `partial`, so it must be out before partial changes.
            if (partialNeeded) partialReady = b.reduce(block, partial, p.type, {got, sent, partialReady});
        }
        all.add(partialReady);
        all.add(outReady);
    }
    return b.join(all);
}

}  // namespace hieragg
