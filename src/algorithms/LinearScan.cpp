#include "hieragg/algorithms/LinearScan.hpp"

namespace hieragg {

bool LinearScan::usesScratch(int me, int n, bool inPlace, bool commutative) const {
    if (me <= 0) return false;                   // member 0 receives nothing
    if (exclusive) return me + 1 < n;            // [0, me] is built beside out, for the next member
    return inPlace || !commutative;              // else the prefix arrives in out itself
}

StepId LinearScan::emit(ScheduleBuilder& b, const Group& g, const Pulse& p) const {
    const int n = g.size();
    const int me = g.me;
    if (me < 0) return kNoStep;
    const bool inPlace = p.input.slot == p.out.slot && p.input.offset == p.out.offset;
    const bool right = me + 1 < n;
    Deps all;
    if (!exclusive) {
        StepId outReady;
        if (me > 0 && !usesScratch(me, n, inPlace, p.commutative)) {
            // out = prefix (received), then out = mine op out (commutative: prefix op mine).
            const StepId got = b.recv(g.ranks[me - 1], p.out, p.type, p.scratchFree, p.channel);
            outReady = b.reduce(p.input, p.out, p.type, {got});
        } else {
            // out = input; then out = (prefix from the left, in scratch) op out.
            outReady = inPlace ? b.join(p.scratchFree) : b.copy(p.input, p.type, p.out, p.type, p.scratchFree);
            if (me > 0) {
                const StepId got = b.recv(g.ranks[me - 1], p.scratch, p.type, p.scratchFree, p.channel);
                outReady = b.reduce(p.scratch, p.out, p.type, {got, outReady});
            }
        }
        all.add(outReady);
        if (right) all.add(b.send(g.ranks[me + 1], p.out, p.type, outReady, p.channel));
        return b.join(all);
    }
    // Exclusive: out = prefix of [0, me-1] as received; [0, me] = out op input goes right.
    if (me == 0) {
        if (right) all.add(b.send(g.ranks[1], p.input, p.type, p.scratchFree, p.channel));
        return b.join(all);
    }
    StepId mine = kNoStep;
    if (right) mine = b.copy(p.input, p.type, p.scratch, p.type, p.scratchFree);  // before out (in place) changes
    Deps beforeRecv = p.scratchFree;
    beforeRecv.add(mine);
    const StepId got = b.recv(g.ranks[me - 1], p.out, p.type, beforeRecv, p.channel);
    all.add(got);
    if (right) {
        const StepId partial = b.reduce(p.out, p.scratch, p.type, {got, mine});
        all.add(b.send(g.ranks[me + 1], p.scratch, p.type, partial, p.channel));
    }
    return b.join(all);
}

}  // namespace hieragg
