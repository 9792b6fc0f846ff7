#include "InterLinear.hpp"

#include "hieragg/ScheduleBuilder.hpp"

namespace hieragg::recipes {

Schedule interRooted(const CollCall& c, bool toRoot, const std::function<Block(int)>& rootBlockOf,
                     const Block& mine) {
    ScheduleBuilder b("inter-linear");
    if (c.args.root == HIERAGG_ROOT) {
        for (int r = 0; r < c.remoteSize; ++r) {
            const Block blk = rootBlockOf(r);
            b.transfer(!toRoot, r, blk.buf, blk.type, {}, 0);
        }
    } else if (c.args.root >= 0) {
        b.transfer(toRoot, c.args.root, mine.buf, mine.type, {}, 0);
    }
    return b.finish();
}

Schedule interExchange(const CollCall& c, const std::function<Block(int)>& recvOf,
                       const std::function<Block(int)>& sendOf) {
    ScheduleBuilder b("inter-linear");
    const int n = c.remoteSize;
    for (int s = 0; s < n; ++s) {
        const int peer = (c.rank + s) % n;
        const Block in = recvOf(peer), out = sendOf(peer);
        b.recv(peer, in.buf, in.type, {}, 0);
        b.send(peer, out.buf, out.type, {}, 0);
    }
    return b.finish();
}

}  // namespace hieragg::recipes
