#include "hieragg/algorithms/BinomialGather.hpp"

namespace hieragg {

namespace binomial {
int parent(int v) { return v & (v - 1); }
int subtreeEnd(int v, int n) {
    if (v == 0) return n;
    const long end = static_cast<long>(v) + (v & -v);
    return end < n ? static_cast<int>(end) : n;
}
std::vector<int> children(int v, int n) {
    std::vector<int> kids;
    const long limit = v == 0 ? 1L << 30 : (v & -v);
    long top = 1;
    while (top < limit && v + top < n) top <<= 1;
    for (long s = top >> 1; s >= 1; s >>= 1)
        if (s < limit && v + s < n) kids.push_back(static_cast<int>(v + s));
    return kids;
}
}  // namespace binomial

namespace {
// Bytes of virtual ranks [from, to).
size_t rangeBytes(const std::vector<size_t>& memberBytes, int rootIdx, int from, int to) {
    const int n = static_cast<int>(memberBytes.size());
    size_t sum = 0;
    for (int v = from; v < to; ++v) sum += memberBytes[(v + rootIdx) % n];
    return sum;
}
}  // namespace

size_t BinomialGather::workBytes(const Group& g, int rootIdx, const std::vector<size_t>& memberBytes) {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return 0;
    const int v = (g.me - rootIdx + n) % n;
    if (v != 0 && binomial::children(v, n).empty()) return 0;
    return rangeBytes(memberBytes, rootIdx, v, binomial::subtreeEnd(v, n));
}

Emitted BinomialGather::emit(ScheduleBuilder& b, const Group& g, int rootIdx,
                             const std::vector<size_t>& memberBytes, Block mine, bool mineInWork,
                             BufRef work, StepId after, uint32_t channel) const {
    const int n = g.size();
    if (n <= 1 || g.me < 0) return {after, after};
    const int v = (g.me - rootIdx + n) % n;
    auto rankOf = [&](int vr) { return g.ranks[(vr + rootIdx) % n]; };
    const std::vector<int> kids = binomial::children(v, n);

    if (v != 0 && kids.empty()) {
        StepId sent = mineInWork
                          ? b.send(rankOf(binomial::parent(v)), work,
                                   {kPackedType, memberBytes[g.me]}, after, channel)
                          : b.send(rankOf(binomial::parent(v)), mine.buf, mine.type, after, channel);
        return {sent, sent};
    }
    Deps have;
    have.add(after);
    if (!mineInWork) have.add(b.copy(mine.buf, mine.type, work, {kPackedType, memberBytes[g.me]}, after));
    // Children's regions are disjoint from this rank's own bytes, so their
    // receives can be posted before `after` (overlap with earlier levels).
    for (int c : kids) {
        const size_t offset = rangeBytes(memberBytes, rootIdx, v, c);
        const size_t bytes = rangeBytes(memberBytes, rootIdx, c, binomial::subtreeEnd(c, n));
        have.add(b.recv(rankOf(c), work.at(static_cast<ptrdiff_t>(offset)), {kPackedType, bytes}, {}, channel));
    }
    StepId all = b.join(have);
    if (v == 0) return {all, all};
    const size_t total = rangeBytes(memberBytes, rootIdx, v, binomial::subtreeEnd(v, n));
    StepId sent = b.send(rankOf(binomial::parent(v)), work, {kPackedType, total}, all, channel);
    return {sent, sent};
}

}  // namespace hieragg
