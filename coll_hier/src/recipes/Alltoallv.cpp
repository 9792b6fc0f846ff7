// Alltoallv, flat pairwise (PerPeerExchange.hpp): each rank knows only its own
// counts, so a leader could not size what its members hand it without a count
// exchange first (docs/recipes-data-movement.md designs that two-stage form).
#include "PerPeerExchange.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule alltoallv(const CollCall& c) {
    const auto& a = c.args;
    return perPeerExchange(
        c,
        [&](int r) {
            return Block{{kRecvBuf, a.rdispls[r] * c.rtype.extent}, {kRecvType, static_cast<size_t>(a.rcounts[r])}};
        },
        [&](int r) { return static_cast<size_t>(a.rcounts[r]) * c.rtype.size; },
        [&](int r) {
            return Block{{kSendBuf, a.sdispls[r] * c.stype.extent}, {kSendType, static_cast<size_t>(a.scounts[r])}};
        });
}

}  // namespace hieragg::recipes
