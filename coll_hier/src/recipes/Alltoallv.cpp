// Alltoallv: flat pairwise (PerPeerExchange.hpp), or, in two stages, through the
// leaders (TwoStage.hpp): each rank knows only its own counts, so the leaders first
// learn their members' rows of sizes.
#include "PeerBlocks.hpp"
#include "PerPeerExchange.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg::recipes {

PeerBlocks alltoallvBlocks(const CollCall& c) {
    const auto& a = c.args;
    const CollCall* cp = &c;
    PeerBlocks pb;
    pb.recvOf = [cp](int r) {
        const auto& a = cp->args;
        return Block{{kRecvBuf, a.rdispls[r] * cp->rtype.extent}, {kRecvType, static_cast<size_t>(a.rcounts[r])}};
    };
    pb.recvBytes = [cp](int r) { return static_cast<size_t>(cp->args.rcounts[r]) * cp->rtype.size; };
    pb.sendOf = [cp](int r) {
        const auto& a = cp->args;
        return Block{{kSendBuf, a.sdispls[r] * cp->stype.extent}, {kSendType, static_cast<size_t>(a.scounts[r])}};
    };
    pb.sendBytes = a.in_place ? pb.recvBytes
                              : std::function<size_t(int)>([cp](int r) {
                                    return static_cast<size_t>(cp->args.scounts[r]) * cp->stype.size;
                                });
    pb.sendAdjacent = [cp](int x, int y) { return cp->args.sdispls[y] == cp->args.sdispls[x] + cp->args.scounts[x]; };
    pb.recvAdjacent = [cp](int x, int y) { return cp->args.rdispls[y] == cp->args.rdispls[x] + cp->args.rcounts[x]; };
    return pb;
}

Schedule alltoallv(const CollCall& c) {
    if (c.varStage == 1) return sizeStage(c);
    if (c.varStage == 2) return alltoallvThroughLeaders(c);
    const PeerBlocks pb = alltoallvBlocks(c);
    return perPeerExchange(c, pb.recvOf, pb.recvBytes, pb.sendOf);
}

Schedule alltoallvThroughLeaders(const CollCall& c) { return leaderPerPeerExchange(c, alltoallvBlocks(c)); }

}  // namespace hieragg::recipes
