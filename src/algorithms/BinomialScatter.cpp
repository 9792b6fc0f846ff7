#include "hieragg/algorithms/BinomialScatter.hpp"

#include "hieragg/algorithms/BinomialGather.hpp"

namespace hieragg {

namespace {
size_t rangeBytes(const std::vector<size_t>& memberBytes, int rootIdx, int from, int to) {
    const int n = static_cast<int>(memberBytes.size());
    size_t sum = 0;
    for (int v = from; v < to; ++v) sum += memberBytes[(v + rootIdx) % n];
    return sum;
}
}  // namespace

size_t BinomialScatter::workBytes(const Group& g, int rootIdx, const std::vector<size_t>& memberBytes,
                                  bool keepInWork) {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return 0;
    const int v = (g.me - rootIdx + n) % n;
    if (v != 0 && !keepInWork && binomial::children(v, n).empty()) return 0;
    return rangeBytes(memberBytes, rootIdx, v, binomial::subtreeEnd(v, n));
}

Emitted BinomialScatter::emit(ScheduleBuilder& b, const Group& g, int rootIdx,
                              const std::vector<size_t>& memberBytes, Block mine, bool keepInWork,
                              BufRef work, StepId after, uint32_t channel) const {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return {after, after};
    const int v = (g.me - rootIdx + n) % n;
    auto rankOf = [&](int vr) { return g.ranks[(vr + rootIdx) % n]; };
    const std::vector<int> kids = binomial::children(v, n);

    StepId have = after;
    StepId ready = after;
    if (v != 0) {
        if (kids.empty() && !keepInWork) {
            StepId got = b.recv(rankOf(binomial::parent(v)), mine.buf, mine.type, after, channel);
            return {got, got};
        }
        const size_t total = rangeBytes(memberBytes, rootIdx, v, binomial::subtreeEnd(v, n));
        have = b.recv(rankOf(binomial::parent(v)), work, {kPackedType, total}, after, channel);
        ready = have;
    }
    // A member that scatters further down keeps its piece packed; the rest unpack it now.
    if (!keepInWork) ready = b.copy(work, {kPackedType, memberBytes[g.me]}, mine.buf, mine.type, have);
    Deps done;
    done.add(ready);
    for (int c : kids) {
        const size_t offset = rangeBytes(memberBytes, rootIdx, v, c);
        const size_t bytes = rangeBytes(memberBytes, rootIdx, c, binomial::subtreeEnd(c, n));
        done.add(b.send(rankOf(c), work.at(static_cast<ptrdiff_t>(offset)), {kPackedType, bytes}, have, channel));
    }
    return {ready, b.join(done)};
}

}  // namespace hieragg
