#include "hieragg/algorithms/LinearGather.hpp"

namespace hieragg {

namespace {
// One message between the root and every other member; toRoot: the root receives them
// (gather), else it sends them (scatter).
Emitted linear(ScheduleBuilder& b, const Group& g, int rootIdx, const std::vector<Block>& rootBlocks, Block mine,
               StepId after, uint32_t channel, bool toRoot) {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return {after, after};
    if (g.me != rootIdx) {
        const StepId moved = b.transfer(toRoot, g.ranks[rootIdx], mine.buf, mine.type, after, channel);
        return {moved, moved};
    }
    Deps all;
    all.add(after);
    for (int j = 1; j < n; ++j) {
        const int i = (rootIdx + j) % n;
        // The root's blocks are disjoint: its receives need not wait for `after`, its sends do.
        all.add(b.transfer(!toRoot, g.ranks[i], rootBlocks[i].buf, rootBlocks[i].type, toRoot ? Deps{} : Deps{after},
                           channel));
    }
    const StepId done = b.join(all);
    return {done, done};
}
}  // namespace

Emitted LinearGather::emit(ScheduleBuilder& b, const Group& g, int rootIdx, const std::vector<Block>& rootBlocks,
                           Block mine, StepId after, uint32_t channel) const {
    return linear(b, g, rootIdx, rootBlocks, mine, after, channel, true);
}

Emitted LinearScatter::emit(ScheduleBuilder& b, const Group& g, int rootIdx, const std::vector<Block>& rootBlocks,
                            Block mine, StepId after, uint32_t channel) const {
    return linear(b, g, rootIdx, rootBlocks, mine, after, channel, false);
}

}  // namespace hieragg
