// Allgather with every member of a node as a leader (registry row multileader of
// allgather and allgatherv): member j of every outermost group (node) forms a column;
// each column passes its members' blocks around a ring between the nodes, so all M
// members of a node use the network at once, and every block crosses each node's link
// exactly once ((G - 1)/G of the result per node, the link bound). Each member forwards
// every block it holds (its own, then each one the column ring brings) straight into the
// rbuf of the other members of its node as the pieces arrive, so the node-local
// allgather overlaps the network instead of following it, and no leader gathers or
// stages the node's blocks first (docs/recipes-data-movement.md).
// Blocks travel in pieces of about one segment (at most kMultiLeaderMaxPieces per block, so
// the schedule's size does not grow with the message; see piecesOf). Temporary memory: none.
// Needs groups of equal size (a column has a member in every node).
#pragma once
#include <functional>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/algorithms/Block.hpp"

namespace hieragg::recipes {

constexpr size_t kMultiLeaderMaxPieces = 16;  // pieces per block, beyond that longer pieces
// More than two nodes: a block is forwarded around its column ring, so it is cut into at
// least this many pieces (of at least kMultiLeaderMinPieceBytes) for a node to forward
// one piece while the next arrives, instead of waiting for the whole block at every hop.
constexpr size_t kMultiLeaderRingPieces = 4;
constexpr size_t kMultiLeaderMinPieceBytes = 4096;
constexpr size_t kMultiLeaderWindow = 32;     // messages in flight per ordered pair of ranks

// blockOf(r): where rank r's block lives in every rbuf (kRecvType); mine: this rank's input
// (its send buffer, or blockOf(rank) in place).
Schedule multiLeaderAllgather(const CollCall& c, const std::function<Block(int)>& blockOf, const Block& mine);
// Allgatherv's automatic choice (it has no plan of its own): what the cost model picks for
// an allgather of the mean block on the same communicator and decomposition.
bool multiLeaderPays(const CollCall& c, const std::function<Block(int)>& blockOf);
// Elements per piece of a block of `count` elements of `elemBytes` with `groups` nodes and
// segments of `segmentBytes` (0: unsegmented): what the recipe cuts and the model prices.
size_t multiLeaderPiece(size_t count, size_t elemBytes, size_t segmentBytes, int groups);

}  // namespace hieragg::recipes
