// Alltoallv, flat pairwise: each rank knows only its own counts, so a leader
// could not size what its members hand it without a count exchange first
// (docs/recipes-data-movement.md designs that two-stage form). In place: every
// block of rbuf is first copied into one packed temporary.
#include "hieragg/algorithms/PairwiseAlltoall.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule alltoallv(const CollCall& c) {
    const auto& a = c.args;
    const int n = c.inter ? c.remoteSize : c.size;
    ScheduleBuilder b(c.inter ? "inter-linear" : "flat-pairwise");
    auto targetOf = [&](int r) {
        return Block{{kRecvBuf, a.rdispls[r] * c.rtype.extent}, {kRecvType, static_cast<size_t>(a.rcounts[r])}};
    };
    std::vector<Block> sends, recvs;
    for (int r = 0; r < n; ++r) recvs.push_back(targetOf(r));
    StepId after = kNoStep;
    if (a.in_place && !c.inter) {
        size_t total = 0;
        for (int r = 0; r < n; ++r) total += static_cast<size_t>(a.rcounts[r]) * c.rtype.size;
        BufRef copy = b.temp(total);
        Deps copied;
        size_t offset = 0;
        for (int r = 0; r < n; ++r) {
            const size_t bytes = static_cast<size_t>(a.rcounts[r]) * c.rtype.size;
            Block blk = packedBlock(copy.at(static_cast<ptrdiff_t>(offset)), bytes);
            copied.add(b.copy(recvs[r].buf, recvs[r].type, blk.buf, blk.type));
            sends.push_back(blk);
            offset += bytes;
        }
        after = b.join(copied);
    } else {
        for (int r = 0; r < n; ++r)
            sends.push_back({{kSendBuf, a.sdispls[r] * c.stype.extent}, {kSendType, static_cast<size_t>(a.scounts[r])}});
    }
    if (c.inter) {
        for (int s = 0; s < n; ++s) {
            const int peer = (c.rank + s) % n;
            b.recv(peer, recvs[peer].buf, recvs[peer].type, {}, 0);
            b.send(peer, sends[peer].buf, sends[peer].type, {}, 0);
        }
        return b.finish();
    }
    PairwiseAlltoall{8}.emit(b, Group::whole(c.size, c.rank), sends, recvs, after, 0);
    return b.finish();
}

}  // namespace hieragg::recipes
