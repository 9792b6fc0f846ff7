// Alltoallw: flat pairwise (PerPeerExchange.hpp) with one datatype per peer (type
// slots 3+i / 3+n+i) and byte displacements, or, in two stages, through the leaders
// (TwoStage.hpp): a leader moves packed bytes, so per-peer types cost nothing there;
// only the block's owner packs or unpacks it with its own type.
#include "PeerBlocks.hpp"
#include "PerPeerExchange.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg::recipes {

PeerBlocks alltoallwBlocks(const CollCall& c) {
    const CollCall* cp = &c;
    const int n = c.inter ? c.remoteSize : c.size;
    PeerBlocks pb;
    pb.recvOf = [cp, n](int r) {
        return Block{{kRecvBuf, cp->args.rdispls[r]},
                     {static_cast<uint32_t>(kFirstPeerType + n + r), static_cast<size_t>(cp->args.rcounts[r])}};
    };
    pb.recvBytes = [cp](int r) { return static_cast<size_t>(cp->args.rcounts[r]) * cp->rtypes[r].size; };
    pb.sendOf = [cp](int r) {
        return Block{{kSendBuf, cp->args.sdispls[r]},
                     {static_cast<uint32_t>(kFirstPeerType + r), static_cast<size_t>(cp->args.scounts[r])}};
    };
    pb.sendBytes = c.args.in_place ? pb.recvBytes
                                   : std::function<size_t(int)>([cp](int r) {
                                         return static_cast<size_t>(cp->args.scounts[r]) * cp->stypes[r].size;
                                     });
    // Byte displacements and a type per peer: never merged.
    pb.sendAdjacent = pb.recvAdjacent = [](int, int) { return false; };
    return pb;
}

Schedule alltoallw(const CollCall& c) {
    if (c.varStage == 1) return sizeStage(c);
    if (c.varStage == 2) return alltoallwThroughLeaders(c);
    const PeerBlocks pb = alltoallwBlocks(c);
    return perPeerExchange(c, pb.recvOf, pb.recvBytes, pb.sendOf);
}

Schedule alltoallwThroughLeaders(const CollCall& c) { return leaderPerPeerExchange(c, alltoallwBlocks(c)); }

}  // namespace hieragg::recipes
