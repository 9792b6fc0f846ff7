#include "hieragg/algorithms/PairwiseAlltoall.hpp"

namespace hieragg {

Emitted PairwiseAlltoall::emit(ScheduleBuilder& b, const Group& g, const std::vector<Block>& sendBlocks,
                               const std::vector<Block>& recvBlocks, StepId after, uint32_t channel) const {
    const int n = g.size();
    if (g.me < 0) return {after, after};
    Deps all;
    const int me = g.me;
    all.add(b.copy(sendBlocks[me].buf, sendBlocks[me].type, recvBlocks[me].buf, recvBlocks[me].type, after));
    all.add(after);
    std::vector<StepId> stepDone(static_cast<size_t>(n), kNoStep);
    for (int s = 1; s < n; ++s) {
        Deps gate;
        gate.add(after);
        if (window > 0 && s > window) gate.add(stepDone[s - window]);
        const int to = (me + s) % n, from = (me - s + n) % n;
        StepId r = b.recv(g.ranks[from], recvBlocks[from].buf, recvBlocks[from].type, gate, channel);
        StepId x = b.send(g.ranks[to], sendBlocks[to].buf, sendBlocks[to].type, gate, channel);
        stepDone[s] = b.join({r, x});
        all.add(stepDone[s]);
    }
    StepId done = b.join(all);
    return {done, done};
}

}  // namespace hieragg
