#include "hieragg/hier/CollectiveFacts.hpp"

#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::hier {

namespace {
using S = ModelShape;
using B = ModelBytes;
using L = VectorLength;
using R = RootOnly;
using T = SizeStage;
using O = OffloadOp;
using X = TreeTerms;
constexpr uint16_t kCountsDispls = kSendCounts | kSendDispls | kRecvCounts | kRecvDispls;
constexpr bool model = true, reduces = true;

// One row per hieragg_coll_kind, in the enum's order (checked below).
// name, shape, model-driven, model bytes, vectors, vector length, significant at the root only,
// size stage, offload, reduction, the tree plan's own terms (none when left out).
constexpr CollectiveFacts kFacts[] = {
    {"allgather", S::Bcast, model, B::RecvBlock, kNoVectors, L::None, R::None, T::None, O::None, false},
    {"allgatherv", S::Bcast, model, B::MeanOfRecvCounts, kRecvCounts | kRecvDispls, L::Peers, R::None, T::None,
     O::None, false},
    {"allreduce", S::Allreduce, model, B::RecvBlock, kNoVectors, L::None, R::None, T::None, O::Allreduce, reduces},
    {"alltoall", S::Bcast, model, B::RecvBlock, kNoVectors, L::None, R::None, T::None, O::None, false},
    {"alltoallv", S::Bcast, false, B::RecvBlock, kCountsDispls, L::Peers, R::None, T::PeerRows, O::None, false},
    {"alltoallw", S::Bcast, false, B::RecvBlock, kCountsDispls | kPeerTypes, L::Peers, R::None, T::PeerRows,
     O::None, false},
    {"barrier", S::Barrier, model, B::None, kNoVectors, L::None, R::None, T::None, O::Barrier, false},
    {"bcast", S::Bcast, model, B::RecvBlock, kNoVectors, L::None, R::None, T::None, O::Bcast, false, X::SharedCores},
    {"exscan", S::Bcast, model, B::RecvBlock, kNoVectors, L::None, R::None, T::None, O::None, reduces},
    {"gather", S::Gather, model, B::GatherBlock, kNoVectors, L::None, R::None, T::None, O::None, false},
    {"gatherv", S::Bcast, false, B::RecvBlock, kRecvCounts | kRecvDispls, L::Peers, R::RecvVectors,
     T::SendBlock, O::None, false},
    {"reduce", S::Reduce, model, B::RecvBlock, kNoVectors, L::None, R::None, T::None, O::None, reduces,
     X::SharedCores},
    // MPI: an intercommunicator's reduce_scatter has one count per rank of the local group.
    {"reduce_scatter", S::Reduce, model, B::SumOfRecvCounts, kRecvCounts, L::LocalRanks, R::None, T::None,
     O::None, reduces, X::ScatterAfter},
    {"reduce_scatter_block", S::Reduce, model, B::AllBlocks, kNoVectors, L::None, R::None, T::None, O::None,
     reduces, X::ScatterAfter},
    {"scan", S::Bcast, model, B::RecvBlock, kNoVectors, L::None, R::None, T::None, O::None, reduces},
    {"scatter", S::Gather, model, B::ScatterBlock, kNoVectors, L::None, R::None, T::None, O::None, false},
    {"scatterv", S::Bcast, false, B::RecvBlock, kSendCounts | kSendDispls, L::Peers, R::SendVectors,
     T::RecvBlock, O::None, false},
    {"neighbor_allgather", S::Bcast, false, B::RecvBlock, kNeighborLists, L::Neighbors, R::None, T::None,
     O::None, false},
    {"neighbor_allgatherv", S::Bcast, false, B::RecvBlock, kNeighborLists | kRecvCounts | kRecvDispls, L::Neighbors,
     R::None, T::None, O::None, false},
    {"neighbor_alltoall", S::Bcast, false, B::RecvBlock, kNeighborLists, L::Neighbors, R::None, T::None,
     O::None, false},
    {"neighbor_alltoallv", S::Bcast, false, B::RecvBlock, kNeighborLists | kCountsDispls, L::Neighbors, R::None, T::None, O::None, false},
    {"neighbor_alltoallw", S::Bcast, false, B::RecvBlock,
     kNeighborLists | kSendCounts | kSendDisplsBytes | kRecvCounts | kRecvDisplsBytes | kPeerTypes, L::Neighbors,
     R::None, T::None, O::None, false},
};
static_assert(sizeof kFacts / sizeof *kFacts == HIERAGG_COLL_KIND_COUNT, "one row per hieragg_coll_kind");

constexpr CollectiveFacts kUnknown = {"unknown", S::Bcast, false, B::RecvBlock, kNoVectors, L::None, R::None, T::None, O::None, false};

size_t sumOfRecvCounts(const CollCall& c) {
    size_t total = 0;
    for (int i = 0; c.args.rcounts && i < c.size; ++i) total += static_cast<size_t>(c.args.rcounts[i]);
    return total;
}
}  // namespace

const CollectiveFacts& factsOf(hieragg_coll_kind kind) {
    return kind >= 0 && kind < HIERAGG_COLL_KIND_COUNT ? kFacts[kind] : kUnknown;
}

const char* collectiveName(hieragg_coll_kind kind) { return factsOf(kind).name; }

bool modelDriven(hieragg_coll_kind kind) { return factsOf(kind).modelDriven; }


bool rawRepeatable(hieragg_coll_kind kind) {
    return !(factsOf(kind).vectors & kPeerTypes);
}

bool isReduction(hieragg_coll_kind kind) { return factsOf(kind).reduction; }

size_t modelBytes(const CollCall& c) {
    const auto& a = c.args;
    switch (factsOf(a.kind).modelBytes) {
    case B::None: return 0;
    case B::GatherBlock: return (c.rank == a.root && a.in_place) ? a.rcount * c.rtype.size : a.scount * c.stype.size;
    case B::ScatterBlock: return c.rank == a.root ? a.scount * c.stype.size : a.rcount * c.rtype.size;
    case B::AllBlocks: return a.rcount * c.rtype.size * static_cast<size_t>(c.size);
    case B::SumOfRecvCounts: return sumOfRecvCounts(c) * c.rtype.size;
    // The mean block: every rank knows every count, so every rank prices the same call.
    case B::MeanOfRecvCounts: return c.size > 0 ? sumOfRecvCounts(c) / static_cast<size_t>(c.size) * c.rtype.size : 0;
    case B::RecvBlock: break;
    }
    return a.rcount * c.rtype.size;
}

bool isDecomposed(const CollCall& c) { return !c.inter && c.hierarchy != nullptr && !c.hierarchy->isTrivial(); }

}  // namespace hieragg::hier

namespace hieragg::recipes {
bool dependsOnPerRankVectors(hieragg_coll_kind kind) { return hier::factsOf(kind).vectors != hier::kNoVectors; }
bool useHierarchy(const CollCall& call) { return hier::isDecomposed(call); }
}  // namespace hieragg::recipes
