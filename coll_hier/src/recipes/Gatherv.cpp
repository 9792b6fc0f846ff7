// Gatherv, flat linear: recvcounts are known only at the root, so a leader
// cannot size or place the blocks of its subspace without first learning them
// (docs/recipes-data-movement.md designs the two-stage hierarchical form).
// Every rank sends straight into the root's recvbuf at its displacement.
#include "hieragg/algorithms/LinearGather.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule gatherv(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b(c.inter ? "inter-linear" : "flat-linear");
    auto rootBlock = [&](int r) {
        return Block{{kRecvBuf, a.rdispls[r] * c.rtype.extent}, {kRecvType, static_cast<size_t>(a.rcounts[r])}};
    };
    const Block mine{{kSendBuf, 0}, {kSendType, a.scount}};
    if (c.inter) {
        if (a.root == HIERAGG_ROOT) {
            for (int r = 0; r < c.remoteSize; ++r) b.recv(r, rootBlock(r).buf, rootBlock(r).type, {}, 0);
        } else if (a.root >= 0) {
            b.send(a.root, mine.buf, mine.type, {}, 0);
        }
        return b.finish();
    }
    std::vector<Block> blocks;
    if (c.rank == a.root) {
        for (int r = 0; r < c.size; ++r) blocks.push_back(rootBlock(r));
        if (!a.in_place) b.copy(mine.buf, mine.type, blocks[a.root].buf, blocks[a.root].type);
    }
    LinearGather{}.emit(b, Group::whole(c.size, c.rank), a.root, blocks, mine, kNoStep, 0);
    return b.finish();
}

}  // namespace hieragg::recipes
