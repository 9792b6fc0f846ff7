// The algorithm set as data. Every entry (row) names one algorithm of one collective, the
// levels of the decomposition it may serve, what the call must satisfy for it to be
// correct, which knobs the cost model tunes for it, how the selection composes it, its
// cost function and its builders (what the recipes call to run it). Each algorithm is one unit, coll_hier/src/algorithms/<family>/<name>.cpp,
// holding its rows and its cost; coll_hier/src/algorithms/AlgorithmList.cpp lists the rows
// in the order of the coll_hieragg_<coll>_algorithm enums (docs/architecture.md, "Adding
// an algorithm"). The enums, the forced-algorithm check and the selection (Selection.hpp)
// all read it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/Group.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/ScheduleBuilder.hpp"
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
// support is each builder's job instead.
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

// What the recipes, the chooser and the plan's description test of a row (bit set): the
// properties of how it runs, never which algorithm it is.
enum Traits : unsigned {
    kTraitTree = 1u << 0,    // its stage runs a tree of the plan's shape and radix (the description shows them)
    kTraitFabric = 1u << 1,  // its stage runs as one offloaded collective of the fabric (Transport::icollective)
};

// How the selection composes a row (Selection.cpp).
enum class Pricing : uint8_t {
    Stage,       // one stage of the plan: a level's spaces, the leaders, or the whole communicator flat
    WholeTree,   // one tree over every level at once, against the plan level by level
    Alone,       // the whole call by itself, against the tree plan and the other such rows
    FlatMarker,  // no price of its own: forcing it runs the best flat plan of the Stage rows
    ForcedOnly,  // never the model's choice; forced, it is priced as its cost says (a whole tree)
};

struct Plan;         // Selection.hpp
struct StageChoice;  // Selection.hpp

// A row's builders, by the role a recipe gives it (null: the recipe's own composition runs
// the row, e.g. the trees of a level-by-level plan).
// The whole call: this rank's schedule, when the row is the plan's first stage or the
// recipe's choice (rows that own the call: a composition of their own, flat or over the
// decomposition); nullopt: not this call (e.g. in place), the recipe's own composition runs.
using CallBuilder = std::optional<Schedule> (*)(const CollCall& call, const Plan& plan);
// One space of a stage without data (barrier): synchronise group g after `after`, from
// channel `channel` on; returns the step after which every member has entered.
using SpaceBuilder = StepId (*)(ScheduleBuilder& b, const Group& g, StepId after, uint32_t channel);
// The one tree of a whole-tree stage over every rank, rooted at `root` (WholeTree.hpp);
// `name` (if given) receives what the schedule reports.
using TreeBuilder = MemberTree (*)(const CollCall& call, const StageChoice& stage, int root, std::string* name);

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
    unsigned traits;    // Traits bits
    TreeShape::Kind shape;  // kTraitTree rows only
    const char* summary;
    Pricing pricing = Pricing::Stage;
    CostFunction cost = nullptr;  // null: FlatMarker rows only
    CallBuilder build = nullptr;
    SpaceBuilder space = nullptr;
    TreeBuilder tree = nullptr;
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
