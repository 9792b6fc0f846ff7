// What hieragg knows about each collective, as data: one row per hieragg_coll_kind
// (CollectiveFacts.cpp), read through factsOf() and the accessors below. The selection,
// the recipes, the cache keys, the offload and strong reproducibility ask these rows
// instead of each switching over the kinds (the idea of MPICH's coll_algorithms.txt).
// A new collective is one new row; a new fact is one new column.
#pragma once
#include <cstddef>
#include <cstdint>

#include "hieragg/CollCall.hpp"

namespace hieragg::hier {

// How the cost model prices one stage of the collective (Selection.cpp's Load).
enum class ModelShape : uint8_t { Bcast, Reduce, Allreduce, Barrier, Gather };

// Which bytes the model sees (modelBytes): none, the receive block, the gather's / scatter's
// block as this rank gives or takes it, all P blocks, or the sum or mean of the receive counts.
enum class ModelBytes : uint8_t { None, RecvBlock, GatherBlock, ScatterBlock, AllBlocks, SumOfRecvCounts, MeanOfRecvCounts };

// The per-rank vector arguments a call carries (bits of CollectiveFacts::vectors).
enum VectorArg : uint16_t {
    kNoVectors = 0,
    kSendCounts = 1u << 0,
    kSendDispls = 1u << 1,        // in elements (extents)
    kRecvCounts = 1u << 2,
    kRecvDispls = 1u << 3,
    kSendDisplsBytes = 1u << 4,   // neighbor_alltoallw: in bytes
    kRecvDisplsBytes = 1u << 5,
    kPeerTypes = 1u << 6,         // a datatype per peer (alltoallw)
    kNeighborLists = 1u << 7,     // sources and destinations
};

// How many entries a vector has: one per rank of the communicator (of the remote group on
// an intercommunicator, or always the local group), or one per in-/out-neighbor.
enum class VectorLength : uint8_t { None, Peers, LocalRanks, Neighbors };

// Where a vector is significant (MPI: "significant only at root"): everywhere, or, for the
// rooted v-variants, the send vectors (scatterv) or receive vectors (gatherv) at the root only.
enum class RootOnly : uint8_t { None, SendVectors, RecvVectors };

// What a two-stage v-variant's size stage carries from each rank (TwoStage.hpp): its send
// block (gatherv), its receive block (scatterv) or its row of sizes per peer (alltoallv/w).
enum class SizeStage : uint8_t { None, SendBlock, RecvBlock, PeerRows };

// The leader-stage operation an offload backend may run for the collective (offloadServes).
enum class OffloadOp : uint8_t { None, Barrier, Bcast, Allreduce };

// What the cost model adds to the collective's tree plan beyond its stages' trees.
enum class TreeTerms : uint8_t {
    None,
    SharedCores,   // on one node with more ranks than cores its trees are bound by the cores
                   // (model/SharedCoresModel.hpp; measured for bcast and reduce)
    ScatterAfter,  // rank 0 scatters the blocks after the reduce (model/ScatterAfterReduce.hpp)
};

struct CollectiveFacts {
    const char* name;          // "bcast", ... (the C ABI's hieragg_coll_name)
    ModelShape shape;
    bool modelDriven;          // its recipe follows a Plan from the cost model
    ModelBytes modelBytes;
    uint16_t vectors;          // VectorArg bits: per-rank vectors the schedule depends on
    VectorLength vectorLength;
    RootOnly rootOnly;
    SizeStage sizeStage;       // None: never runs as two stages
    OffloadOp offload;
    bool reduction;            // combines with an op (strong reproducibility applies)
    TreeTerms treeTerms = TreeTerms::None;
};

// The row of `kind` (out of range: a row named "unknown" with no facts).
const CollectiveFacts& factsOf(hieragg_coll_kind kind);

// The table's accessors declared where their callers have always found them:
// collectiveName (AlgorithmRegistry.hpp), modelDriven and modelBytes (Selection.hpp),
// recipes::dependsOnPerRankVectors and recipes::useHierarchy (= isDecomposed, Recipes.hpp).

// The last call's schedule may serve a repeat of the same raw arguments and equal per-rank
// vectors (CallPreparation.cpp): the kind has no per-peer datatypes (whose layouts the raw
// arguments, handles, do not show).
bool rawRepeatable(hieragg_coll_kind kind);
// A reduction (reduce, allreduce, reduce_scatter(_block), scan, exscan).
bool isReduction(hieragg_coll_kind kind);

// The call runs over a decomposition that splits its communicator: an intracommunicator
// with a non-trivial hierarchy (intercommunicators are never decomposed).
bool isDecomposed(const CollCall& c);

}  // namespace hieragg::hier
