// The algorithm set as data. Every entry (row) names one algorithm of one collective, the
// levels of the decomposition it may serve, what the call must satisfy for it to be
// correct, which knobs the cost model tunes for it, how the selection composes it and its
// cost function. Each algorithm is one unit, coll_hier/src/algorithms/<family>/<name>.cpp,
// holding its rows and its cost; coll_hier/src/algorithms/AlgorithmList.cpp lists the rows
// in the order of the coll_hieragg_<coll>_algorithm enums (docs/architecture.md, "Adding
// an algorithm"). The enums, the forced-algorithm check and the selection (Selection.hpp)
// all read it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/algorithms/MemberTree.hpp"

namespace hieragg::hier {

// Where an algorithm may run (bit set).
enum Serves : unsigned {
    kServesFlat = 1u << 0,      // the whole communicator, ignoring the decomposition
    kServesSubspace = 1u << 1,  // inside one subspace (levels 0 .. levels()-1)
    kServesLeaders = 1u << 2,   // the leader space
    kServesWhole = 1u << 3,     // one schedule over the whole hierarchy at once
    kServesAnyLevel = kServesFlat | kServesSubspace | kServesLeaders,
};

// What the call must satisfy (bit set); unmetNeed() says which one fails. Only properties
// every rank of the call sees alike: MPI_IN_PLACE is per rank (the root alone, in rooted
// collectives), so a need on it would let ranks choose differently and deadlock; in-place
// support is each emitter's job instead.
enum Needs : unsigned {
    kNeedsIntracomm = 1u << 0,
    kNeedsCommutativeOp = 1u << 1,
    kNeedsContiguousGroups = 1u << 2,  // every group a contiguous rank range (or a commutative op)
    kNeedsEqualGroups = 1u << 3,       // all groups of a level the same size
    kNeedsPowerOfTwo = 1u << 4,        // communicator size a power of two
    kNeedsDecomposition = 1u << 5,     // a decomposition that splits the communicator
    kNeedsOffload = 1u << 6,           // the communicator's offload backend runs this call (offloadServes)
    kNeedsContiguousRanks = 1u << 7,   // every group a contiguous rank range, whatever the op (prefixes)
    kNeedsSwitchLevels = 1u << 8,      // levels from a topology: file (switches to build a type II tree on)
    kNeedsTriggered = 1u << 9,         // the offload backend's triggered operations run this call (triggeredServes)
};

// What the model chooses for it (bit set).
enum Tunes : unsigned {
    kTunesRadix = 1u << 0,    // k of a k-nomial / k-ary tree
    kTunesSegment = 1u << 1,  // pipeline segment (chain chunk, SPEC 3.5)
    kTunesWindow = 1u << 2,   // pulses in flight (reductions)
};

// The emitter family a recipe runs for an entry.
enum class Emitter {
    Tree,               // TreeBcast / OrderedTreeReduce / TreeGather / TreeScatter over `shape`
    HierarchicalTree,   // one minimum-height k-nomial tree over the decomposition (SPEC 3.2 alg. 2-4)
    FlatComposition,    // no decomposition: the model picks the tree for the whole communicator
    Dissemination,      // barrier
    Ring,               // allgather(v)
    Pairwise,           // alltoall(v,w)
    HierarchicalGatherRingBcast,  // allgather(v) over leaders
    HierarchicalLeaders,          // alltoall through leaders
    Linear,             // v-variants and neighborhood collectives; scan, exscan along the rank chain
    RecursiveDoubling,  // scan, exscan; allreduce: butterfly exchanges of the whole vector
    Rabenseifner,       // allreduce: recursive-halving reduce-scatter + recursive-doubling allgather
    MultiLeaderRing,    // allreduce: reduce-scatter in the node, ring per slice between nodes, allgather
    MultiLeaderRabenseifner,  // the same with Rabenseifner per slice between nodes
    LeaderPrefix,       // scan, exscan: prefix in each group, exscan of the group totals between leaders
    LeaderChain,        // scan, exscan: prefix in each group, the running prefix passed group to group
                        // (last rank -> next group's first rank): every message goes to a higher rank
    LeaderRing,         // allgather: leaders pass groups' blocks on a ring, broadcasting each into their group
    Bruck,              // allgather: ceil(log2 n) steps for any n, rotated scratch
    Fabric,             // the leader space as one offloaded collective (Transport::icollective)
    SwitchTree,         // the minimum-cost type II switch tree, one proxy rank per kept switch (SwitchTree.hpp)
    PipelinedTree,      // bcast/reduce: one tree over all levels (chain of leaders, k-nomial below)
                        // run as a fragment pipeline (FragmentPipeline, PipelineTree.hpp)
    MultiLeaderAllgather,  // allgather(v): member j of every node a column ring, pieces forwarded in the node
    Direct,             // gather/scatter: every block straight between its rank and the root, all at once
    RecursiveHalving,   // reduce_scatter(_block): halving rounds without a root, empty halves not sent
};

// How the selection composes a row (Selection.cpp).
enum class Pricing : uint8_t {
    Stage,       // one stage of the plan: a level's spaces, the leaders, or the whole communicator flat
    WholeTree,   // one tree over every level at once, against the plan level by level
    Alone,       // the whole call by itself, against the tree plan and the other such rows
    FlatMarker,  // no price of its own: forcing it runs the best flat plan of the Stage rows
    ForcedOnly,  // never the model's choice; forced, it is priced as its cost says (a whole tree)
};

struct CostQuery;  // what a cost function sees of the call (coll_hier/src/algorithms/CostQuery.hpp)
struct Estimate;   // what it returns
struct AlgorithmInfo;
using CostFunction = Estimate (*)(const AlgorithmInfo& row, const CostQuery& query);

struct AlgorithmInfo {
    hieragg_coll_kind coll;
    const char* name;   // the value of coll_hieragg_<coll>_algorithm
    unsigned serves;    // Serves bits
    unsigned needs;     // Needs bits
    unsigned tunes;     // Tunes bits
    Emitter emitter;
    TreeShape::Kind shape;  // Emitter::Tree only
    const char* summary;
    Pricing pricing = Pricing::Stage;
    CostFunction cost = nullptr;  // null: FlatMarker rows only
};

// "bcast", "allreduce", ... (the C ABI's hieragg_coll_name; "unknown" out of range).
const char* collectiveName(hieragg_coll_kind kind);

// Every entry of the table, in table order.
const std::vector<AlgorithmInfo>& allAlgorithms();
// The entries of one collective; enum value i + 1 of coll_hieragg_<coll>_algorithm is entry i
// (0 is "auto").
const std::vector<const AlgorithmInfo*>& algorithmsOf(hieragg_coll_kind coll);
// "auto,name1,name2,..." (index = enum value).
const char* algorithmNames(hieragg_coll_kind coll);
// Entry for an override value (0 or out of range: nullptr = auto).
const AlgorithmInfo* algorithmByValue(hieragg_coll_kind coll, int value);
const AlgorithmInfo* algorithmByName(hieragg_coll_kind coll, const std::string& name);
// The override value of an entry (inverse of algorithmByValue).
int algorithmValue(const AlgorithmInfo& a);

// Whether the communicator's offload backend can run this call's leader stage: it joined a
// group offering the collective, and (allreduce) the element kind, a predefined commutative
// operation, the count and the reproducibility setting fit. Every rank of the call sees
// the same answer (signature, op and settings are the call's, caps the communicator's).
bool offloadServes(const CollCall& call);
// The communicator's offload backend can run this call's leader stage as a chain of
// triggered operations (FI_TRIGGER; docs/offload.md): a bcast of at least one byte.
bool triggeredServes(const CollCall& call);

// Empty if `call` satisfies every need of `a`, else what fails ("needs a commutative op").
std::string unmetNeed(const AlgorithmInfo& a, const CollCall& call);
// The forced algorithm of `call` (call.algorithm), or nullptr for auto or when its needs
// fail; then *refusal (if given) says why.
const AlgorithmInfo* forcedAlgorithm(const CollCall& call, std::string* refusal = nullptr);

}  // namespace hieragg::hier
