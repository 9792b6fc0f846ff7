// Allgatherv by recursive doubling, for any communicator size: with p2 the largest power
// of two <= p and r = p - p2, rank p2 + i (i < r) first hands its block to rank i (fold
// in); ranks 0 .. p2 - 1 then run log2 p2 rounds, in round d trading with rank v ^ d every
// block of the aligned range of d ranks they hold (a rank i < r holds block p2 + i too);
// last, rank i sends rank p2 + i every block but its own (fold out). Blocks move straight
// from and into rbuf at their displacements, one message per run of blocks adjacent in
// memory, and empty runs are not sent, so zero counts cost nothing.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/MessageCost.hpp"
#include "model/WhyText.hpp"
#include "recipes/GatheredBlocks.hpp"

namespace hieragg::hier::units {

namespace {

int largestPowerOfTwoUpTo(int n) {
    int p2 = 1;
    while (p2 * 2 <= n) p2 *= 2;
    return p2;
}

// The blocks of ranks `ids` (in that order) as runs adjacent in memory, empty runs left out:
// every rank computes the same runs for the same ids, so sender and receiver agree.
std::vector<Block> runsOf(const recipes::GatheredBlocks& blocks, const std::vector<int>& ids) {
    std::vector<Block> out;
    int prev = -1;
    for (int id : ids) {
        const Block blk = blocks.of(id);
        if (prev >= 0 && blocks.adjacent(prev, id))
            out.back().type.count += blk.type.count;
        else
            out.push_back(blk);
        prev = id;
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const Block& x) { return x.type.count == 0; }), out.end());
    return out;
}

// The ranks whose blocks virtual rank v's aligned range of `width` holds: the range, then
// the folded-in ranks of its first r members.
std::vector<int> heldBy(int v, int width, int p2, int r) {
    const int lo = v & ~(width - 1);
    std::vector<int> ids;
    for (int u = lo; u < lo + width; ++u) ids.push_back(u);
    for (int u = lo; u < std::min(lo + width, r); ++u) ids.push_back(p2 + u);
    return ids;
}

constexpr uint32_t kFoldIn = stageChannel(0), kRounds = stageChannel(1), kFoldOut = stageChannel(2);

void sendRuns(ScheduleBuilder& b, int peer, const std::vector<Block>& runs, const Deps& after, uint32_t base,
              Deps& sent) {
    for (size_t j = 0; j < runs.size(); ++j) sent.add(b.send(peer, runs[j].buf, runs[j].type, after, segmentChannel(base, j)));
}
void recvRuns(ScheduleBuilder& b, int peer, const std::vector<Block>& runs, uint32_t base, Deps& got) {
    for (size_t j = 0; j < runs.size(); ++j) got.add(b.recv(peer, runs[j].buf, runs[j].type, {}, segmentChannel(base, j)));
}

std::optional<Schedule> build(const CollCall& c, const Plan&) {
    const recipes::GatheredBlocks blocks{c};
    ScheduleBuilder b("flat-recursive-doubling");
    const int n = c.size, me = c.rank, p2 = largestPowerOfTwoUpTo(n), r = n - p2;
    StepId have = blocks.placeMine(b);
    Deps all{have};
    if (me >= p2) {  // folded in: my block to rank me - p2, every other block back from it
        const int host = me - p2;
        if (blocks.of(me).type.count > 0) {
            const Block mine = blocks.mine();
            all.add(b.send(host, mine.buf, mine.type, {}, kFoldIn));
        }
        std::vector<int> others;
        for (int id = 0; id < n; ++id)
            if (id != me) others.push_back(id);
        recvRuns(b, host, runsOf(blocks, others), kFoldOut, all);
        b.join(all);
        return b.finish();
    }
    if (me < r) {
        Deps got{have};
        recvRuns(b, p2 + me, runsOf(blocks, {p2 + me}), kFoldIn, got);
        have = b.join(got);
    }
    for (int d = 1; d < p2; d *= 2) {
        const int partner = me ^ d;
        sendRuns(b, partner, runsOf(blocks, heldBy(me, d, p2, r)), have, kRounds, all);
        Deps got{have};
        recvRuns(b, partner, runsOf(blocks, heldBy(partner, d, p2, r)), kRounds, got);
        have = b.join(got);
    }
    all.add(have);
    if (me < r) {
        std::vector<int> others;
        for (int id = 0; id < n; ++id)
            if (id != p2 + me) others.push_back(id);
        sendRuns(b, p2 + me, runsOf(blocks, others), have, kFoldOut, all);
    }
    b.join(all);
    return b.finish();
}

// Allgather's doubling rounds (exchange rounds model; off powers of two it counts
// ceil(log2 p) rounds, one more than the log2 p2 that run), plus the fold: two lone hops on
// the outermost link, one block in before the rounds and the whole result out after them.
Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);
    const int p2 = largestPowerOfTwoUpTo(std::max(x.n, 1)), r = x.n - p2;
    double us = doublingRoundsUs(x, q.bytes, false);
    std::string why = fmt("%.0f", std::log2(p2)) + " rounds";
    if (r > 0) {
        const LinkCost& l = x.hier ? *x.net : *x.in;
        us += 2 * l.alpha_us + messageUs(l, q.bytes) + messageUs(l, (x.n - 1) * q.bytes);
        why += " + fold of " + std::to_string(r) + " ranks";
    }
    return priced(callEstimate(a, q), us, why);
}

}  // namespace

extern const AlgorithmInfo allgatherv_recursive_doubling = {
    HIERAGG_ALLGATHERV, "recursive_doubling", kServesFlat, kNeedsIntracomm, 0, 0, K::Knomial,
    "log2 p exchanges of doubling ranges of blocks straight in rbuf (other sizes fold the extra ranks in)",
    Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
