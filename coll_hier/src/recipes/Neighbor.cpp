// The five neighborhood collectives, linear: post a receive from every source,
// then a send to every destination (MPI_PROC_NULL entries dropped). Nothing to
// decompose: each rank talks to its own neighbours only.
//
// Matching when a peer appears more than once (a periodic Cartesian dimension of
// size 2 or 1, or a multigraph): the k-th receive from a peer uses channel k. A
// sender normally uses the same occurrence order (Open MPI's graph and dist-graph
// semantics). For Cartesian neighbour lists (sources == destinations, pairs
// -1/+1 per dimension) a block sent in the negative direction is received in the
// positive-direction slot and vice versa (Open MPI's cart semantics), so a peer
// that is both neighbours of one dimension gets the channel of the other half of
// the pair. The lists alone cannot tell a Cartesian topology from a graph with
// the same lists, so such a graph with doubled edges would see its two blocks
// swapped: the ABI should carry the topology kind (docs/recipes-data-movement.md).
#include <algorithm>
#include <functional>
#include <map>

#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

namespace {
constexpr uint32_t kNeighborChannels = 16 * kStageChannels;

bool cartesianLists(const hieragg_coll_args& a) {
    if (a.topology != HIERAGG_TOPO_UNKNOWN) return a.topology == HIERAGG_TOPO_CART;
    if (a.indegree != a.outdegree || a.indegree % 2 != 0) return false;
    for (int i = 0; i < a.indegree; ++i)
        if (a.sources[i] != a.destinations[i]) return false;
    return true;
}

// occurrence[i]: how many earlier entries of `list` name the same peer.
std::vector<uint32_t> occurrences(const int* list, int n) {
    std::vector<uint32_t> occ(static_cast<size_t>(n));
    std::map<int, uint32_t> seen;
    for (int i = 0; i < n; ++i) occ[i] = seen[list[i]]++;
    return occ;
}

Schedule neighborExchange(const CollCall& c, const char* name, const std::function<Block(int)>& sendBlock,
                          const std::function<Block(int)>& recvBlock) {
    const auto& a = c.args;
    ScheduleBuilder b(name);
    const std::vector<uint32_t> recvOcc = occurrences(a.sources, a.indegree);
    const std::vector<uint32_t> sendOcc = occurrences(a.destinations, a.outdegree);
    const bool cart = cartesianLists(a);
    for (int i = 0; i < a.indegree; ++i) {
        const Block blk = recvBlock(i);
        b.recv(a.sources[i], blk.buf, blk.type, {}, recvOcc[i] % kNeighborChannels);
    }
    for (int j = 0; j < a.outdegree; ++j) {
        uint32_t occ = sendOcc[j];
        if (cart && a.destinations[j ^ 1] == a.destinations[j]) occ = sendOcc[j ^ 1];
        const Block blk = sendBlock(j);
        b.send(a.destinations[j], blk.buf, blk.type, {}, occ % kNeighborChannels);
    }
    return b.finish();
}
}  // namespace

Schedule neighborAllgather(const CollCall& c) {
    const auto& a = c.args;
    const ptrdiff_t rblock = static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent;
    return neighborExchange(
        c, "linear", [&](int) { return Block{{kSendBuf, 0}, {kSendType, a.scount}}; },
        [&](int i) { return Block{{kRecvBuf, i * rblock}, {kRecvType, a.rcount}}; });
}

Schedule neighborAllgatherv(const CollCall& c) {
    const auto& a = c.args;
    return neighborExchange(
        c, "linear", [&](int) { return Block{{kSendBuf, 0}, {kSendType, a.scount}}; },
        [&](int i) {
            return Block{{kRecvBuf, a.rdispls[i] * c.rtype.extent}, {kRecvType, static_cast<size_t>(a.rcounts[i])}};
        });
}

Schedule neighborAlltoall(const CollCall& c) {
    const auto& a = c.args;
    const ptrdiff_t sblock = static_cast<ptrdiff_t>(a.scount) * c.stype.extent;
    const ptrdiff_t rblock = static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent;
    return neighborExchange(
        c, "linear", [&](int j) { return Block{{kSendBuf, j * sblock}, {kSendType, a.scount}}; },
        [&](int i) { return Block{{kRecvBuf, i * rblock}, {kRecvType, a.rcount}}; });
}

Schedule neighborAlltoallv(const CollCall& c) {
    const auto& a = c.args;
    return neighborExchange(
        c, "linear",
        [&](int j) {
            return Block{{kSendBuf, a.sdispls[j] * c.stype.extent}, {kSendType, static_cast<size_t>(a.scounts[j])}};
        },
        [&](int i) {
            return Block{{kRecvBuf, a.rdispls[i] * c.rtype.extent}, {kRecvType, static_cast<size_t>(a.rcounts[i])}};
        });
}

Schedule neighborAlltoallw(const CollCall& c) {
    const auto& a = c.args;
    const uint32_t n = static_cast<uint32_t>(std::max(a.indegree, a.outdegree));
    return neighborExchange(
        c, "linear",
        [&](int j) {
            return Block{{kSendBuf, a.sdispls_bytes[j]},
                         {kFirstPeerType + static_cast<uint32_t>(j), static_cast<size_t>(a.scounts[j])}};
        },
        [&](int i) {
            return Block{{kRecvBuf, a.rdispls_bytes[i]},
                         {kFirstPeerType + n + static_cast<uint32_t>(i), static_cast<size_t>(a.rcounts[i])}};
        });
}

}  // namespace hieragg::recipes
