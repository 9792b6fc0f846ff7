#include "PerPeerExchange.hpp"

#include <vector>

#include "InterLinear.hpp"

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/PairwiseAlltoall.hpp"

namespace hieragg::recipes {

Schedule perPeerExchange(const CollCall& c, const std::function<Block(int)>& recvOf,
                         const std::function<size_t(int)>& recvBytes,
                         const std::function<Block(int)>& sendOf) {
    if (c.inter) return interExchange(c, recvOf, sendOf);
    const int n = c.size;
    ScheduleBuilder b("flat-pairwise");
    std::vector<Block> sends, recvs;
    for (int r = 0; r < n; ++r) recvs.push_back(recvOf(r));
    StepId after = kNoStep;
    if (c.args.in_place) {
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
    PairwiseAlltoall{8}.emit(b, Group::whole(c.size, c.rank), sends, recvs, after, 0);
    return b.finish();
}

}  // namespace hieragg::recipes
