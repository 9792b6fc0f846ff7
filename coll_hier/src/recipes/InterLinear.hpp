// The intercommunicator forms of the data-movement collectives: no decomposition, the
// two groups talk directly, one message per pair of ranks. One builder per pattern,
// told where each block is:
//  - rooted (gather, scatter, gatherv, scatterv): the root (HIERAGG_ROOT in its group)
//    moves remote rank r's block rootBlockOf(r); a rank of the remote group (root >= 0)
//    moves its own block `mine`; toward the root (toRoot) or from it. The other ranks of
//    the root's group (MPI_PROC_NULL) take no part.
//  - exchange (allgather, allgatherv, alltoall, alltoallv, alltoallw): with every remote
//    rank, starting at its own rank number to spread the load, each rank receives
//    recvOf(peer) and sends sendOf(peer).
#pragma once
#include <functional>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/algorithms/Block.hpp"

namespace hieragg::recipes {

Schedule interRooted(const CollCall& c, bool toRoot, const std::function<Block(int)>& rootBlockOf,
                     const Block& mine);

Schedule interExchange(const CollCall& c, const std::function<Block(int)>& recvOf,
                       const std::function<Block(int)>& sendOf);

}  // namespace hieragg::recipes
