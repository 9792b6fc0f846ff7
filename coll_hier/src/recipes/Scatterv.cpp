// Scatterv, flat linear: sendcounts are known only at the root, so leaders could
// not size their subspace's share without an extra exchange (see
// docs/recipes-data-movement.md). The root sends every block straight from its
// displacement into the owner's recvbuf.
#include "hieragg/algorithms/LinearGather.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule scatterv(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b(c.inter ? "inter-linear" : "flat-linear");
    auto rootBlock = [&](int r) {
        return Block{{kSendBuf, a.sdispls[r] * c.stype.extent}, {kSendType, static_cast<size_t>(a.scounts[r])}};
    };
    const Block mine{{kRecvBuf, 0}, {kRecvType, a.rcount}};
    if (c.inter) {
        if (a.root == HIERAGG_ROOT) {
            for (int r = 0; r < c.remoteSize; ++r) b.send(r, rootBlock(r).buf, rootBlock(r).type, {}, 0);
        } else if (a.root >= 0) {
            b.recv(a.root, mine.buf, mine.type, {}, 0);
        }
        return b.finish();
    }
    std::vector<Block> blocks;
    if (c.rank == a.root) {
        for (int r = 0; r < c.size; ++r) blocks.push_back(rootBlock(r));
        if (!a.in_place) b.copy(blocks[a.root].buf, blocks[a.root].type, mine.buf, mine.type);
    }
    LinearScatter{}.emit(b, Group::whole(c.size, c.rank), a.root, blocks, mine, kNoStep, 0);
    return b.finish();
}

}  // namespace hieragg::recipes
