#include "hieragg/algorithms/BruckAllgatherv.hpp"

#include <algorithm>

namespace hieragg {

namespace {
// Members first .. first + k - 1 (mod n) as runs of blocks adjacent in memory: one Block
// each (its start, the runs' summed count). Empty runs are left out on both ends alike.
std::vector<Block> runs(const std::vector<Block>& blocks, const std::function<bool(int, int)>& adjacent, int first,
                        int k) {
    const int n = static_cast<int>(blocks.size());
    std::vector<Block> out;
    int prev = -1;
    for (int j = 0; j < k; ++j) {
        const int m = (first + j) % n;
        if (prev >= 0 && m == prev + 1 && adjacent(prev, m))
            out.back().type.count += blocks[m].type.count;
        else
            out.push_back(blocks[m]);
        prev = m;
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const Block& r) { return r.type.count == 0; }), out.end());
    return out;
}
}  // namespace

Emitted BruckAllgatherv::emit(ScheduleBuilder& b, const Group& g, const std::vector<Block>& blocks,
                              const std::function<bool(int, int)>& adjacent, StepId after, uint32_t channel) const {
    const int n = g.size(), me = g.me;
    if (n <= 1 || me < 0) return {after, after};
    Deps all{after};
    StepId have = after;
    for (int d = 1; d < n; d *= 2) {
        const int k = std::min(d, n - d);
        // Different distances talk to different peers, so a run's index is its channel.
        const std::vector<Block> out = runs(blocks, adjacent, me, k);
        for (size_t j = 0; j < out.size(); ++j)
            all.add(b.send(g.ranks[(me - d + n) % n], out[j].buf, out[j].type, have, segmentChannel(channel, j)));
        const std::vector<Block> in = runs(blocks, adjacent, (me + d) % n, k);
        Deps got{have};
        for (size_t j = 0; j < in.size(); ++j)
            got.add(b.recv(g.ranks[(me + d) % n], in[j].buf, in[j].type, {}, segmentChannel(channel, j)));
        have = b.join(got);
        all.add(have);
    }
    const StepId done = b.join(all);
    return {have, done};
}

}  // namespace hieragg
