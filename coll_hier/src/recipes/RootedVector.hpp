// Gatherv and scatterv are one movement in two directions: a block per rank, at the
// root's displacements. RootedVector describes one of them (which side the root's
// blocks are on, which way the data goes) and builds both of its schedules once:
// flat linear, and through the leaders (TwoStage.hpp's stage 2).
#pragma once
#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"

namespace hieragg::recipes {

struct RootedVector {
    bool toRoot;              // gatherv: every block travels to the root; scatterv: from it
    const int* rootCounts;    // the root's counts and displacements (rcounts/rdispls or scounts/sdispls)
    const int* rootDispls;
    const hieragg_dtype_info* rootType;
    uint32_t rootBuf, rootTypeSlot;  // where the root's blocks are: kRecvBuf/kRecvType or kSendBuf/kSendType
    uint32_t mineBuf, mineTypeSlot;  // this rank's own block
    size_t mineCount;
    size_t myBytes;           // this rank's own block's bytes (0: none, e.g. scatterv's in-place root)

    static RootedVector gatherv(const CollCall& c);
    static RootedVector scatterv(const CollCall& c);
};

// Flat: every block straight between the root's displacement and its owner.
Schedule rootedVectorFlat(const CollCall& c, const RootedVector& v);
// Through the leaders: each group's blocks (up to the limit) packed into one message
// between the root and the group's leader; larger blocks and the root's own group go
// straight. The leader learned its members' sizes in stage 1 (c.learnedBytes).
Schedule rootedVectorThroughLeaders(const CollCall& c, const RootedVector& v);

}  // namespace hieragg::recipes
