// Gather and scatter are one movement in two directions (as RootedVector.hpp for gatherv
// and scatterv): a block per rank between the root's n blocks (gather: rbuf; scatter:
// sbuf) and each rank's own block. RootedBlocks says where those blocks are for one
// call; the k-nomial recipes (RootedBlocks.cpp) and the direct rows (DirectRooted.cpp)
// build from it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "hieragg/CollCall.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"

namespace hieragg::recipes {

struct RootedBlocks {
    bool toRoot;       // gather: every block travels to the root; scatter: from it
    bool isRoot;       // this rank is the root
    bool inPlace;      // ... and the call is in place
    uint32_t rootBuf, rootSlot;  // where the root's blocks are: kRecvBuf/kRecvType or kSendBuf/kSendType
    size_t rootCount;  // elements of one of the root's blocks
    ptrdiff_t stride;  // bytes from one of the root's blocks to the next
    Block own;         // this rank's own block
    // Every rank moves the same signature, so all agree on the block size; the root reads
    // it on its own side in place (gather) or always (scatter: its rbuf may be absent).
    size_t blockBytes;

    RootedBlocks(const CollCall& c, bool toRoot);
    // Rank r's block at the root.
    Block rootBlockOf(int r) const { return Block{{rootBuf, r * stride}, {rootSlot, rootCount}}; }
    // The root's own block between its two buffers, the way the data goes.
    StepId moveOwn(ScheduleBuilder& b, int root) const;
};

}  // namespace hieragg::recipes
