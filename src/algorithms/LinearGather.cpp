#include "hieragg/algorithms/LinearGather.hpp"

namespace hieragg {

Emitted LinearGather::emit(ScheduleBuilder& b, const Group& g, int rootIdx, const std::vector<Block>& rootBlocks,
                           Block mine, StepId after, uint32_t channel) const {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return {after, after};
    if (g.me != rootIdx) {
        StepId sent = b.send(g.ranks[rootIdx], mine.buf, mine.type, after, channel);
        return {sent, sent};
    }
    Deps all;
    all.add(after);
    for (int j = 1; j < n; ++j) {
        const int i = (rootIdx + j) % n;
        all.add(b.recv(g.ranks[i], rootBlocks[i].buf, rootBlocks[i].type, {}, channel));
    }
    StepId done = b.join(all);
    return {done, done};
}

Emitted LinearScatter::emit(ScheduleBuilder& b, const Group& g, int rootIdx, const std::vector<Block>& rootBlocks,
                            Block mine, StepId after, uint32_t channel) const {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return {after, after};
    if (g.me != rootIdx) {
        StepId got = b.recv(g.ranks[rootIdx], mine.buf, mine.type, after, channel);
        return {got, got};
    }
    Deps all;
    all.add(after);
    for (int j = 1; j < n; ++j) {
        const int i = (rootIdx + j) % n;
        all.add(b.send(g.ranks[i], rootBlocks[i].buf, rootBlocks[i].type, after, channel));
    }
    StepId done = b.join(all);
    return {done, done};
}

}  // namespace hieragg
