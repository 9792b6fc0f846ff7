// The per-peer blocks of an alltoallv / alltoallw call (counts, displacements and,
// for alltoallw, one datatype per peer), shared by the flat exchange, the size stage
// and the leaders' exchange (TwoStage.hpp).
#pragma once
#include <functional>

#include "hieragg/CollCall.hpp"
#include "hieragg/algorithms/Block.hpp"

namespace hieragg::recipes {

struct PeerBlocks {
    std::function<Block(int)> sendOf, recvOf;           // peer r's block in sbuf / rbuf
    std::function<size_t(int)> sendBytes, recvBytes;    // their packed sizes
    // Peers r, s whose blocks lie back to back in the same type (one copy serves both).
    std::function<bool(int, int)> sendAdjacent, recvAdjacent;
};

// In place, sendOf is meaningless and sendBytes is recvBytes (MPI reads rbuf).
PeerBlocks alltoallvBlocks(const CollCall& c);
PeerBlocks alltoallwBlocks(const CollCall& c);

// The data stage of both (TwoStage.hpp): blocks leaving a group go through its leader.
Schedule leaderPerPeerExchange(const CollCall& c, const PeerBlocks& pb);

}  // namespace hieragg::recipes
