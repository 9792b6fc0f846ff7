// Alltoallw, flat pairwise (PerPeerExchange.hpp) with one datatype per peer (type
// slots 3+i / 3+n+i) and byte displacements. Like alltoallv, only the rank itself
// knows its counts and types, so there is no hierarchical form without a size exchange.
#include "PerPeerExchange.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule alltoallw(const CollCall& c) {
    const auto& a = c.args;
    const int n = c.inter ? c.remoteSize : c.size;
    return perPeerExchange(
        c,
        [&](int r) {
            return Block{{kRecvBuf, a.rdispls[r]},
                         {static_cast<uint32_t>(kFirstPeerType + n + r), static_cast<size_t>(a.rcounts[r])}};
        },
        [&](int r) { return static_cast<size_t>(a.rcounts[r]) * c.rtypes[r].size; },
        [&](int r) {
            return Block{{kSendBuf, a.sdispls[r]},
                         {static_cast<uint32_t>(kFirstPeerType + r), static_cast<size_t>(a.scounts[r])}};
        });
}

}  // namespace hieragg::recipes
