#include "PerPeerExchange.hpp"

#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/PairwiseAlltoall.hpp"

namespace hieragg::recipes {

Schedule perPeerExchange(const CollCall& c, const std::function<Block(int)>& recvOf,
                         const std::function<size_t(int)>& recvBytes,
                         const std::function<Block(int)>& sendOf) {
    const int n = c.inter ? c.remoteSize : c.size;
    ScheduleBuilder b(c.inter ? "inter-linear" : "flat-pairwise");
    std::vector<Block> sends, recvs;
    for (int r = 0; r < n; ++r) recvs.push_back(recvOf(r));
    StepId after = kNoStep;
    if (c.args.in_place && !c.inter) {
        size_t total = 0;
        for (int r = 0; r < n; ++r) total += recvBytes(r);
        BufRef copy = b.temp(total);
        Deps copied;
        size_t offset = 0;
        for (int r = 0; r < n; ++r) {
            const size_t bytes = recvBytes(r);
            Block blk = packedBlock(copy.at(static_cast<ptrdiff_t>(offset)), bytes);
            copied.add(b.copy(recvs[r].buf, recvs[r].type, blk.buf, blk.type));
            sends.push_back(blk);
            offset += bytes;
        }
        after = b.join(copied);
    } else {
        for (int r = 0; r < n; ++r) sends.push_back(sendOf(r));
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
