// THE algorithm table: one row per algorithm (see AlgorithmRegistry.hpp).
// Rows of one collective keep their order (it is the MCA enum's value order);
// append new rows after the existing ones of their collective.
#include <algorithm>
#include <map>
#include <mutex>

#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/SwitchTree.hpp"

namespace hieragg::hier {

namespace {
using K = TreeShape::Kind;
constexpr unsigned kAny = kServesAnyLevel;
constexpr unsigned kTree = kTunesRadix | kTunesSegment;
constexpr unsigned kPulsed = kTunesRadix | kTunesSegment | kTunesWindow;

#define REDUCTION_ROWS(COLL)                                                                                  \
    {COLL, "knomial", kAny, 0, kPulsed, Emitter::Tree, K::Knomial,                                            \
     "k-nomial tree per space, k from the model; rank order for non-commutative ops"},                        \
    {COLL, "flat", kServesFlat, 0, kPulsed, Emitter::FlatComposition, K::Knomial,                             \
     "one tree over the whole communicator, ignoring the decomposition"},                                     \
    {COLL, "kary", kAny, kNeedsCommutativeOp, kPulsed, Emitter::Tree, K::Kary,                                \
     "k-ary tree per space (breadth-first numbering: not in rank order)"},                                    \
    {COLL, "chain", kAny, 0, kPulsed, Emitter::Tree, K::Chain,                                                \
     "pipelined chain per space: pulses stream down the rank order"},                                         \
    {COLL, "hier_knomial", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsCommutativeOp,         \
     kPulsed, Emitter::HierarchicalTree, K::Knomial,                                                          \
     "one minimum-height k-nomial tree over all levels (every non-leader's parent in its own group)"}

// Type II switch tree (SwitchTree.hpp): allreduce is its reduce and bcast over the same tree.
#define TYPE2_ROW(COLL, NEEDS)                                                                                \
    {COLL, "type2", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsSwitchLevels | (NEEDS), 0,     \
     Emitter::SwitchTree, K::Knomial,                                                                         \
     "minimum-cost type II switch tree (topology: levels), one proxy rank aggregating per kept switch"}

const std::vector<AlgorithmInfo> kTable = {
    {HIERAGG_BCAST, "knomial", kAny, 0, kTree, Emitter::Tree, K::Knomial, "k-nomial tree per space, k from the model"},
    {HIERAGG_BCAST, "chain", kAny, kNeedsIntracomm, kTunesSegment, Emitter::Tree, K::Chain,
     "pipelined chain per space, chunk from SPEC 3.5's formula"},
    {HIERAGG_BCAST, "flat", kServesFlat, 0, kTree, Emitter::FlatComposition, K::Knomial,
     "one tree over the whole communicator, ignoring the decomposition"},
    {HIERAGG_BCAST, "kary", kAny, 0, kTree, Emitter::Tree, K::Kary, "k-ary tree per space"},
    {HIERAGG_BCAST, "hier_knomial", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, kTree,
     Emitter::HierarchicalTree, K::Knomial,
     "one minimum-height k-nomial tree over all levels (every non-leader's parent in its own group)"},
    {HIERAGG_BCAST, "ofi", kServesLeaders, kNeedsIntracomm | kNeedsDecomposition | kNeedsOffload, 0, Emitter::Fabric,
     K::Knomial, "the leader space as one fi_broadcast on the group joined at setup (docs/offload.md)"},
    {HIERAGG_BCAST, "ofi_triggered_chain", kServesLeaders, kNeedsIntracomm | kNeedsDecomposition | kNeedsTriggered,
     kTunesSegment, Emitter::Fabric, K::Chain,
     "pipelined chain over the leaders whose relays forward by FI_TRIGGER sends fired by receive counters"},
    TYPE2_ROW(HIERAGG_BCAST, 0),
    {HIERAGG_BCAST, "hier_pipeline", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, kTree,
     Emitter::PipelinedTree, K::Knomial,
     "fragments stream down one tree over all levels: leaders in a chain, k-nomial below each leader"},

    {HIERAGG_GATHER, "knomial", kAny, 0, kTunesRadix, Emitter::Tree, K::Knomial,
     "k-nomial tree per space; leaders forward their subspace's blocks in one message"},
    {HIERAGG_GATHER, "flat", kServesFlat, 0, kTunesRadix, Emitter::FlatComposition, K::Knomial,
     "one k-nomial tree over the whole communicator"},
    {HIERAGG_GATHER, "direct", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0, Emitter::Direct, K::Knomial,
     "every rank's block straight into the root's rbuf, all at once: no store-and-forward (large blocks)"},
    {HIERAGG_SCATTER, "knomial", kAny, 0, kTunesRadix, Emitter::Tree, K::Knomial,
     "k-nomial tree per space, the mirror of gather"},
    {HIERAGG_SCATTER, "flat", kServesFlat, 0, kTunesRadix, Emitter::FlatComposition, K::Knomial,
     "one k-nomial tree over the whole communicator"},
    {HIERAGG_SCATTER, "direct", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0, Emitter::Direct, K::Knomial,
     "the root sends every rank its block straight from sbuf, remote nodes first: no store-and-forward"},

    {HIERAGG_ALLGATHER, "ring", kServesFlat, 0, 0, Emitter::Ring, K::Knomial, "ring over the whole communicator"},
    {HIERAGG_ALLGATHER, "hierarchical", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, kTunesSegment,
     Emitter::HierarchicalGatherRingBcast, K::Knomial, "gather to leaders, ring among leaders, broadcast down"},
    {HIERAGG_ALLGATHER, "recursive_doubling", kServesFlat, kNeedsIntracomm | kNeedsPowerOfTwo, 0,
     Emitter::RecursiveDoubling, K::Knomial, "log2 p exchanges of doubling ranges of blocks (power-of-two sizes)"},
    {HIERAGG_ALLGATHER, "bruck", kServesFlat, kNeedsIntracomm, 0, Emitter::Bruck, K::Knomial,
     "ceil(log2 p) steps for any size through a rotated scratch of every block (short blocks)"},
    {HIERAGG_ALLGATHER, "leader_ring", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0, Emitter::LeaderRing,
     K::Knomial, "blocks to the leader, leaders' ring of groups, each group broadcast as it arrives, no staging"},
    {HIERAGG_ALLGATHER, "multileader", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsEqualGroups,
     kTunesSegment, Emitter::MultiLeaderAllgather, K::Knomial,
     "member j of every node a column ring between nodes, pieces forwarded into the node as they arrive"},
    {HIERAGG_ALLGATHERV, "ring", kServesFlat, 0, 0, Emitter::Ring, K::Knomial, "ring over the whole communicator"},
    {HIERAGG_ALLGATHERV, "hierarchical", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, kTunesSegment,
     Emitter::HierarchicalGatherRingBcast, K::Knomial, "gather to leaders, ring among leaders, broadcast down"},
    {HIERAGG_ALLGATHERV, "leader_ring", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0, Emitter::LeaderRing,
     K::Knomial, "blocks to the leader, leaders' ring of groups, each group broadcast as it arrives, no staging"},
    {HIERAGG_ALLGATHERV, "multileader", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsEqualGroups,
     kTunesSegment, Emitter::MultiLeaderAllgather, K::Knomial,
     "member j of every node a column ring between nodes, pieces forwarded into the node as they arrive"},
    {HIERAGG_ALLGATHERV, "bruck", kServesFlat, kNeedsIntracomm, 0, Emitter::Bruck, K::Knomial,
     "ceil(log2 p) steps for any size, blocks straight from and into rbuf (one message per run of blocks)"},
    {HIERAGG_GATHERV, "linear", kServesFlat, 0, 0, Emitter::Linear, K::Knomial, "every rank sends to the root"},
    {HIERAGG_GATHERV, "hierarchical", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0,
     Emitter::HierarchicalLeaders, K::Knomial,
     "sizes to the leaders first, then one message per group to the root (TwoStage.hpp)"},
    {HIERAGG_SCATTERV, "linear", kServesFlat, 0, 0, Emitter::Linear, K::Knomial, "the root sends to every rank"},
    {HIERAGG_SCATTERV, "hierarchical", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0,
     Emitter::HierarchicalLeaders, K::Knomial,
     "sizes to the leaders first, then one message per group from the root (TwoStage.hpp)"},
    {HIERAGG_ALLTOALL, "pairwise", kServesFlat, 0, 0, Emitter::Pairwise, K::Knomial, "n-1 pairwise exchange steps"},
    {HIERAGG_ALLTOALL, "hierarchical", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0,
     Emitter::HierarchicalLeaders, K::Knomial, "blocks travel through the leaders: one message per pair of subspaces"},
    {HIERAGG_ALLTOALLV, "pairwise", kServesFlat, 0, 0, Emitter::Pairwise, K::Knomial, "n-1 pairwise exchange steps"},
    {HIERAGG_ALLTOALLV, "hierarchical", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0,
     Emitter::HierarchicalLeaders, K::Knomial,
     "size rows to the leaders first, then one message per pair of groups (TwoStage.hpp)"},
    {HIERAGG_ALLTOALLW, "pairwise", kServesFlat, 0, 0, Emitter::Pairwise, K::Knomial, "n-1 pairwise exchange steps"},
    {HIERAGG_ALLTOALLW, "hierarchical", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, 0,
     Emitter::HierarchicalLeaders, K::Knomial,
     "size rows to the leaders first, then one message per pair of groups (TwoStage.hpp)"},
    {HIERAGG_NEIGHBOR_ALLGATHER, "linear", kServesFlat, 0, 0, Emitter::Linear, K::Knomial, "one message per neighbor"},
    {HIERAGG_NEIGHBOR_ALLGATHERV, "linear", kServesFlat, 0, 0, Emitter::Linear, K::Knomial, "one message per neighbor"},
    {HIERAGG_NEIGHBOR_ALLTOALL, "linear", kServesFlat, 0, 0, Emitter::Linear, K::Knomial, "one message per neighbor"},
    {HIERAGG_NEIGHBOR_ALLTOALLV, "linear", kServesFlat, 0, 0, Emitter::Linear, K::Knomial, "one message per neighbor"},
    {HIERAGG_NEIGHBOR_ALLTOALLW, "linear", kServesFlat, 0, 0, Emitter::Linear, K::Knomial, "one message per neighbor"},

    {HIERAGG_BARRIER, "dissemination", kServesFlat | kServesLeaders, 0, 0, Emitter::Dissemination, K::Knomial,
     "dissemination rounds (flat, or among the leaders after the subspaces' fan-in)"},
    {HIERAGG_BARRIER, "flat", kServesFlat, 0, 0, Emitter::FlatComposition, K::Knomial,
     "one flat barrier over the whole communicator"},
    {HIERAGG_BARRIER, "knomial", kAny, 0, kTunesRadix, Emitter::Tree, K::Knomial,
     "fan-in up a k-nomial tree, release down the same tree"},
    {HIERAGG_BARRIER, "hier_knomial", kServesWhole, kNeedsIntracomm | kNeedsDecomposition, kTunesRadix,
     Emitter::HierarchicalTree, K::Knomial, "fan-in and release over one minimum-height k-nomial tree"},
    {HIERAGG_BARRIER, "ofi", kServesLeaders, kNeedsIntracomm | kNeedsDecomposition | kNeedsOffload, 0,
     Emitter::Fabric, K::Knomial, "the leader space as one fi_barrier on the group joined at setup"},

    REDUCTION_ROWS(HIERAGG_REDUCE),
    TYPE2_ROW(HIERAGG_REDUCE, kNeedsCommutativeOp),
    {HIERAGG_REDUCE, "hier_pipeline", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsCommutativeOp,
     kTree, Emitter::PipelinedTree, K::Knomial,
     "fragments stream up one tree over all levels: k-nomial to each leader, leaders in a chain"},
    REDUCTION_ROWS(HIERAGG_ALLREDUCE),
    {HIERAGG_ALLREDUCE, "ofi", kServesLeaders,
     kNeedsIntracomm | kNeedsDecomposition | kNeedsCommutativeOp | kNeedsOffload, kTunesSegment, Emitter::Fabric,
     K::Knomial, "reduce to the leaders, fi_allreduce among them per pulse, broadcast down (predefined ops)"},
    // Bandwidth-optimal compositions (SliceAllreduce.hpp): every element reduced once by its
    // slice's owner; operands meet in a fixed but not rank order, hence commutative ops only.
    {HIERAGG_ALLREDUCE, "ring", kServesFlat, kNeedsIntracomm | kNeedsCommutativeOp, kTunesSegment, Emitter::Ring,
     K::Knomial, "ring reduce-scatter + ring allgather over the whole communicator"},
    {HIERAGG_ALLREDUCE, "rabenseifner", kServesFlat, kNeedsIntracomm | kNeedsCommutativeOp, kTunesSegment,
     Emitter::Rabenseifner, K::Knomial, "recursive-halving reduce-scatter + recursive-doubling allgather"},
    {HIERAGG_ALLREDUCE, "recursive_doubling", kServesFlat, kNeedsIntracomm | kNeedsCommutativeOp, kTunesSegment,
     Emitter::RecursiveDoubling, K::Knomial, "log2 p exchanges of the whole vector (short vectors)"},
    {HIERAGG_ALLREDUCE, "multileader_ring", kServesWhole,
     kNeedsIntracomm | kNeedsDecomposition | kNeedsCommutativeOp, kTunesSegment, Emitter::MultiLeaderRing,
     K::Knomial, "reduce-scatter in each node, ring allreduce of slice j among every node's member j, allgather"},
    {HIERAGG_ALLREDUCE, "multileader_rabenseifner", kServesWhole,
     kNeedsIntracomm | kNeedsDecomposition | kNeedsCommutativeOp, kTunesSegment, Emitter::MultiLeaderRabenseifner,
     K::Knomial, "reduce-scatter in each node, Rabenseifner allreduce of each slice between nodes, allgather"},
    TYPE2_ROW(HIERAGG_ALLREDUCE, kNeedsCommutativeOp),
    {HIERAGG_ALLREDUCE, "hier_pipeline", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsCommutativeOp,
     kTree, Emitter::PipelinedTree, K::Knomial,
     "fragments reduced up one tree over all levels (leaders in a chain) and broadcast back down it"},
    REDUCTION_ROWS(HIERAGG_REDUCE_SCATTER),
    {HIERAGG_REDUCE_SCATTER, "ring", kServesFlat, kNeedsIntracomm | kNeedsCommutativeOp, kTunesSegment,
     Emitter::Ring, K::Knomial, "ring reduce-scatter without a root: each block's partial travels the ring once"},
    {HIERAGG_REDUCE_SCATTER, "hierarchical", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsCommutativeOp,
     kTunesSegment, Emitter::LeaderRing, K::Knomial,
     "reduce to each node's leader, ring reduce-scatter of node blocks between leaders, scatter in the node"},
    {HIERAGG_REDUCE_SCATTER, "recursive_halving", kServesFlat, kNeedsIntracomm | kNeedsCommutativeOp, 0,
     Emitter::RecursiveHalving, K::Knomial,
     "log2 p halving rounds without a root, empty halves not sent (short vectors)"},
    REDUCTION_ROWS(HIERAGG_REDUCE_SCATTER_BLOCK),
    {HIERAGG_REDUCE_SCATTER_BLOCK, "ring", kServesFlat, kNeedsIntracomm | kNeedsCommutativeOp, kTunesSegment,
     Emitter::Ring, K::Knomial, "ring reduce-scatter without a root: each block's partial travels the ring once"},
    {HIERAGG_REDUCE_SCATTER_BLOCK, "hierarchical", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsCommutativeOp,
     kTunesSegment, Emitter::LeaderRing, K::Knomial,
     "reduce to each node's leader, ring reduce-scatter of node blocks between leaders, scatter in the node"},
    {HIERAGG_REDUCE_SCATTER_BLOCK, "recursive_halving", kServesFlat, kNeedsIntracomm | kNeedsCommutativeOp, 0,
     Emitter::RecursiveHalving, K::Knomial,
     "log2 p halving rounds without a root, empty halves not sent (short vectors)"},
    {HIERAGG_SCAN, "recursive_doubling", kServesFlat, 0, 0, Emitter::RecursiveDoubling, K::Knomial,
     "recursive doubling in rank order"},
    {HIERAGG_EXSCAN, "recursive_doubling", kServesFlat, 0, 0, Emitter::RecursiveDoubling, K::Knomial,
     "recursive doubling in rank order"},
    {HIERAGG_SCAN, "leader_prefix", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsContiguousRanks, 0,
     Emitter::LeaderPrefix, K::Knomial,
     "scan in each node, exscan of the node totals between the last ranks, finished in each node (rank order)"},
    {HIERAGG_EXSCAN, "leader_prefix", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsContiguousRanks, 0,
     Emitter::LeaderPrefix, K::Knomial,
     "exscan in each node, exscan of the node totals between the last ranks, finished in each node (rank order)"},
    {HIERAGG_SCAN, "leader_chain", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsContiguousRanks, 0,
     Emitter::LeaderChain, K::Knomial,
     "scan in each node, the running prefix passed from node to node in rank order (back-to-back calls overlap)"},
    {HIERAGG_EXSCAN, "leader_chain", kServesWhole, kNeedsIntracomm | kNeedsDecomposition | kNeedsContiguousRanks, 0,
     Emitter::LeaderChain, K::Knomial,
     "exscan in each node, the running prefix passed from node to node in rank order (back-to-back calls overlap)"},
    {HIERAGG_SCAN, "linear", kServesFlat, 0, 0, Emitter::Linear, K::Chain,
     "prefix passed along the rank chain: each rank combines and forwards the vector once (long vectors)"},
    {HIERAGG_EXSCAN, "linear", kServesFlat, 0, 0, Emitter::Linear, K::Chain,
     "prefix passed along the rank chain: each rank combines and forwards the vector once (long vectors)"},
};
#undef REDUCTION_ROWS
#undef TYPE2_ROW

bool contiguousGroups(const Hierarchy& h) {
    for (int l = 0; l < h.levels(); ++l)
        for (int g = 0; g < h.groupCount(l); ++g) {
            const std::vector<int>& m = h.groupMembers(l, g);
            if (!m.empty() && m.back() - m.front() + 1 != static_cast<int>(m.size())) return false;
        }
    return true;
}
bool equalGroups(const Hierarchy& h) {
    for (int l = 0; l < h.levels(); ++l)
        for (int g = 1; g < h.groupCount(l); ++g)
            if (h.groupMembers(l, g).size() != h.groupMembers(l, 0).size()) return false;
    return true;
}
}  // namespace

const std::vector<AlgorithmInfo>& allAlgorithms() { return kTable; }

const std::vector<const AlgorithmInfo*>& algorithmsOf(hieragg_coll_kind coll) {
    // Indexed once (thread-safe static init): calls look entries up without allocating.
    static const std::vector<std::vector<const AlgorithmInfo*>> byColl = [] {
        std::vector<std::vector<const AlgorithmInfo*>> v(HIERAGG_COLL_KIND_COUNT);
        for (const AlgorithmInfo& a : kTable) v[a.coll].push_back(&a);
        return v;
    }();
    static const std::vector<const AlgorithmInfo*> none;
    return coll >= 0 && coll < HIERAGG_COLL_KIND_COUNT ? byColl[coll] : none;
}

const char* algorithmNames(hieragg_coll_kind coll) {
    // Built once per collective; the strings live as long as the process (the MCA enums point at them).
    static std::mutex m;
    static std::map<int, std::string> names;
    std::lock_guard<std::mutex> lock(m);
    auto it = names.find(coll);
    if (it == names.end()) {
        std::string s = "auto";
        for (const AlgorithmInfo* a : algorithmsOf(coll)) s += std::string(",") + a->name;
        it = names.emplace(coll, s).first;
    }
    return it->second.c_str();
}

const AlgorithmInfo* algorithmByValue(hieragg_coll_kind coll, int value) {
    if (value <= 0) return nullptr;
    const std::vector<const AlgorithmInfo*>& all = algorithmsOf(coll);
    return value <= static_cast<int>(all.size()) ? all[value - 1] : nullptr;
}

const AlgorithmInfo* algorithmByName(hieragg_coll_kind coll, const std::string& name) {
    for (const AlgorithmInfo* a : algorithmsOf(coll))
        if (name == a->name) return a;
    return nullptr;
}

int algorithmValue(const AlgorithmInfo& a) {
    const auto& all = algorithmsOf(a.coll);
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i] == &a) return static_cast<int>(i) + 1;
    return 0;
}

bool offloadServes(const CollCall& c) {
    if (!c.offload || !isDecomposed(c)) return false;
    const OffloadCaps& o = *c.offload;
    switch (factsOf(c.args.kind).offload) {
    case OffloadOp::Barrier: return o.barrier;
    case OffloadOp::Bcast: {
        // Bytes padded to a multiple of the members (the provider's scatter+allgather).
        const size_t bytes = c.args.rcount * c.rtype.size;
        return o.bcast && bytes > 0 && o.members > 0 && o.maxBytes >= static_cast<size_t>(o.members) &&
               bytes + static_cast<size_t>(o.members) <= o.maxCount;
    }
    case OffloadOp::Allreduce: {
        if (!c.args.op_commutative || c.elemKind <= 0 || c.elemKind >= HIERAGG_ELEM_COUNT || c.opKind <= 0 ||
            c.opKind >= HIERAGG_OPK_COUNT || c.args.rcount == 0)
            return false;
        if (!(o.allreduceOps[c.elemKind] & (1u << c.opKind))) return false;
        // Pulses are offloaded one by one: the per-pulse count must fit.
        const size_t perPulse = c.rtype.size ? std::max<size_t>(1, c.segmentBytes / c.rtype.size) : c.args.rcount;
        if (std::min(perPulse, c.args.rcount) > o.maxCount || o.maxBytes < c.rtype.size) return false;
        // Floating sums and products depend on the combination order: offload them under
        // coll_hieragg_reproducible only where the provider fixes it.
        const bool floating = c.elemKind == HIERAGG_ELEM_FLOAT || c.elemKind == HIERAGG_ELEM_DOUBLE;
        const bool orderMatters = floating && (c.opKind == HIERAGG_OPK_SUM || c.opKind == HIERAGG_OPK_PROD);
        return !(c.fixedOrderRequired && orderMatters && !o.fixedOrder);
    }
    case OffloadOp::None: break;
    }
    return false;
}

bool triggeredServes(const CollCall& c) {
    if (!c.offload || !c.offload->triggered || !isDecomposed(c)) return false;
    return c.args.kind == HIERAGG_BCAST && c.args.rcount * c.rtype.size > 0;
}

std::string unmetNeed(const AlgorithmInfo& a, const CollCall& c) {
    if ((a.needs & kNeedsIntracomm) && c.inter) return "needs an intracommunicator";
    if ((a.needs & kNeedsCommutativeOp) && !c.args.op_commutative) return "needs a commutative operation";
    if ((a.needs & kNeedsDecomposition) && !isDecomposed(c))
        return "needs a decomposition that splits the communicator";
    if ((a.needs & kNeedsContiguousGroups) && isDecomposed(c) && !c.args.op_commutative &&
        !contiguousGroups(*c.hierarchy))
        return "needs contiguous groups (or a commutative operation)";
    if ((a.needs & kNeedsContiguousRanks) && isDecomposed(c) && !contiguousGroups(*c.hierarchy))
        return "needs contiguous groups";
    if ((a.needs & kNeedsEqualGroups) && isDecomposed(c) && !equalGroups(*c.hierarchy))
        return "needs groups of equal size";
    if ((a.needs & kNeedsPowerOfTwo) && (c.size & (c.size - 1)) != 0) return "needs a power-of-two size";
    if ((a.needs & kNeedsSwitchLevels) && isDecomposed(c) &&
        (!c.stageLinks || leafSwitchLevel(*c.hierarchy, *c.stageLinks) < 0))
        return "needs switch levels (coll_hieragg_split=topology:PATH)";
    if ((a.needs & kNeedsOffload) && !offloadServes(c))
        return "needs the offload backend to support this call (coll_hieragg_offload, docs/offload.md)";
    if ((a.needs & kNeedsTriggered) && !triggeredServes(c))
        return "needs an offload provider with triggered operations (FI_TRIGGER, e.g. "
               "coll_hieragg_ofi_provider=sockets; docs/offload.md)";
    return {};
}

const AlgorithmInfo* forcedAlgorithm(const CollCall& c, std::string* refusal) {
    const AlgorithmInfo* a = algorithmByValue(c.args.kind, c.algorithm);
    if (!a) return nullptr;
    std::string why = unmetNeed(*a, c);
    if (why.empty()) return a;
    if (refusal) *refusal = why;
    return nullptr;
}

}  // namespace hieragg::hier
