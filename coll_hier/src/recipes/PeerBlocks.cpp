// Alltoallv and alltoallw: flat pairwise (PerPeerExchange.hpp), or, in two stages,
// through the leaders (TwoStage.hpp): each rank knows only its own counts, so the leaders
// first learn their members' rows of sizes. Both describe their blocks per peer
// (PeerBlocks.hpp) and differ only in how: alltoallv by displacements in extents of one
// datatype per side, alltoallw by byte displacements and one datatype per peer (type slots
// 3+i / 3+n+i); a leader moves packed bytes, so per-peer types cost nothing there: only
// the block's owner packs or unpacks it with its own type.
#include "PeerBlocks.hpp"

#include "PerPeerExchange.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg::recipes {

namespace {
// One side of the call (send or receive): peer r's block is counts[r] elements at displs[r]
// of buffer `buf`. One datatype (alltoallv): type slot `slot`, layout types[0], displacements
// in its extents. Per peer (alltoallw): slot + r, layout types[r], displacements in bytes.
struct PeerSide {
    uint32_t buf;
    const int* counts;
    const int* displs;
    uint32_t slot;
    const hieragg_dtype_info* types;
    bool perPeer;

    const hieragg_dtype_info& typeOf(int r) const { return types[perPeer ? r : 0]; }
    Block blockOf(int r) const {
        const ptrdiff_t unit = perPeer ? 1 : typeOf(r).extent;
        return Block{{buf, displs[r] * unit},
                     {static_cast<uint32_t>(slot + (perPeer ? r : 0)), static_cast<size_t>(counts[r])}};
    }
    size_t bytesOf(int r) const { return static_cast<size_t>(counts[r]) * typeOf(r).size; }
    // Back to back in the same type: one copy serves both (never with a type per peer).
    bool adjacent(int x, int y) const { return !perPeer && displs[y] == displs[x] + counts[x]; }
};

PeerBlocks blocksOf(const PeerSide& send, const PeerSide& recv, bool inPlace) {
    PeerBlocks pb;
    pb.recvOf = [recv](int r) { return recv.blockOf(r); };
    pb.recvBytes = [recv](int r) { return recv.bytesOf(r); };
    pb.sendOf = [send](int r) { return send.blockOf(r); };
    pb.sendBytes = inPlace ? pb.recvBytes : std::function<size_t(int)>([send](int r) { return send.bytesOf(r); });
    pb.sendAdjacent = [send](int x, int y) { return send.adjacent(x, y); };
    pb.recvAdjacent = [recv](int x, int y) { return recv.adjacent(x, y); };
    return pb;
}

Schedule perPeerRecipe(const CollCall& c, PeerBlocks (*blocks)(const CollCall&)) {
    if (c.varStage == 1) return sizeStage(c);
    const PeerBlocks pb = blocks(c);
    if (c.varStage == 2) return leaderPerPeerExchange(c, pb);
    return perPeerExchange(c, pb.recvOf, pb.recvBytes, pb.sendOf);
}
}  // namespace

PeerBlocks alltoallvBlocks(const CollCall& c) {
    const auto& a = c.args;
    return blocksOf({kSendBuf, a.scounts, a.sdispls, kSendType, &c.stype, false},
                    {kRecvBuf, a.rcounts, a.rdispls, kRecvType, &c.rtype, false}, a.in_place != 0);
}

PeerBlocks alltoallwBlocks(const CollCall& c) {
    const auto& a = c.args;
    const int n = c.inter ? c.remoteSize : c.size;
    return blocksOf({kSendBuf, a.scounts, a.sdispls, kFirstPeerType, c.stypes.data(), true},
                    {kRecvBuf, a.rcounts, a.rdispls, static_cast<uint32_t>(kFirstPeerType + n), c.rtypes.data(), true},
                    a.in_place != 0);
}

Schedule alltoallv(const CollCall& c) { return perPeerRecipe(c, alltoallvBlocks); }
Schedule alltoallw(const CollCall& c) { return perPeerRecipe(c, alltoallwBlocks); }

Schedule alltoallvThroughLeaders(const CollCall& c) { return leaderPerPeerExchange(c, alltoallvBlocks(c)); }
Schedule alltoallwThroughLeaders(const CollCall& c) { return leaderPerPeerExchange(c, alltoallwBlocks(c)); }

}  // namespace hieragg::recipes
