// The flat exchange behind alltoallv and alltoallw: every rank sends one block to
// and receives one block from every peer, described per peer (counts, displacements
// and, for alltoallw, datatypes). Only the rank itself knows its blocks; the
// hierarchical form first hands the leaders their sizes (TwoStage.hpp).
#pragma once
#include <functional>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/algorithms/Block.hpp"

namespace hieragg::recipes {

// recvOf(r): where peer r's block lands, recvBytes(r) its packed size; sendOf(r): the
// block for peer r. Intra: pairwise; inter: linear (InterLinear.hpp). In place: rbuf is first copied
// into one packed temporary and every send reads from that copy.
Schedule perPeerExchange(const CollCall& c, const std::function<Block(int)>& recvOf,
                         const std::function<size_t(int)>& recvBytes,
                         const std::function<Block(int)>& sendOf);

}  // namespace hieragg::recipes
