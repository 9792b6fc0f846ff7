// Alltoallw, flat pairwise with one datatype per peer (type slots 3+i / 3+n+i)
// and byte displacements. Like alltoallv, only the rank itself knows its
// counts and types, so there is no hierarchical form without a size exchange.
// In place: every block of rbuf is first copied into one packed temporary.
#include "hieragg/algorithms/PairwiseAlltoall.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule alltoallw(const CollCall& c) {
    const auto& a = c.args;
    const int n = c.inter ? c.remoteSize : c.size;
    ScheduleBuilder b(c.inter ? "inter-linear" : "flat-pairwise");
    auto recvType = [&](int r) { return static_cast<uint32_t>(kFirstPeerType + n + r); };
    auto sendType = [&](int r) { return static_cast<uint32_t>(kFirstPeerType + r); };
    std::vector<Block> sends, recvs;
    for (int r = 0; r < n; ++r)
        recvs.push_back({{kRecvBuf, a.rdispls[r]}, {recvType(r), static_cast<size_t>(a.rcounts[r])}});
    StepId after = kNoStep;
    if (a.in_place && !c.inter) {
        size_t total = 0;
        for (int r = 0; r < n; ++r) total += static_cast<size_t>(a.rcounts[r]) * c.rtypes[r].size;
        BufRef copy = b.temp(total);
        Deps copied;
        size_t offset = 0;
        for (int r = 0; r < n; ++r) {
            const size_t bytes = static_cast<size_t>(a.rcounts[r]) * c.rtypes[r].size;
            Block blk = packedBlock(copy.at(static_cast<ptrdiff_t>(offset)), bytes);
            copied.add(b.copy(recvs[r].buf, recvs[r].type, blk.buf, blk.type));
            sends.push_back(blk);
            offset += bytes;
        }
        after = b.join(copied);
    } else {
        for (int r = 0; r < n; ++r)
            sends.push_back({{kSendBuf, a.sdispls[r]}, {sendType(r), static_cast<size_t>(a.scounts[r])}});
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
