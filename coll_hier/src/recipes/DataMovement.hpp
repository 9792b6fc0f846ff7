// Shared pieces of the data-movement recipes (gather, scatter, allgather(v),
// alltoall family): the per-level stages of a rank over the decomposition, the
// order in which a leader holds other ranks' blocks, and run-merged copies
// between those packed collections and the user's typed buffers.
#pragma once
#include <functional>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/MemberTree.hpp"

namespace hieragg::recipes::dm {

// One flat piece of a rooted data-movement collective: a space of more than one
// member this rank belongs to, and the packed bytes each member contributes
// (its whole collection: the ranks of the group it leads one level down).
struct Stage {
    int level = 0;
    Group group;
    int rootIdx = 0;
    std::vector<size_t> memberBytes;
};

// Levels of the decomposition seen by the data-movement recipes: the hierarchy's
// levels 0..levels() (levels() = leader space), or a single level holding the
// whole communicator when the call runs flat.
struct Levels {
    const CollCall& call;
    bool flat;
    explicit Levels(const CollCall& c);
    int top() const;  // the leader space (flat: 0)
    // Members of rank's space at `level` (rooted at root, root < 0: unrooted) and its
    // root's index; an empty group if rank takes part in none.
    Group space(int level, int rank, int root, int* rootIdx) const;
    // Ranks whose blocks a leader of `level` groups holds: its group at `level`
    // (flat or level < 0: just itself; level == top(): everyone).
    std::vector<int> groupOf(int level, int rank, int root) const;
};

// Stages of `rank` bottom-up over levels 0..topLevel, skipping spaces of one member.
std::vector<Stage> stagesOf(const Levels& lv, int rank, int root, int topLevel,
                            const std::vector<size_t>& rankBytes);

// Ranks in the order `rank` holds them after its stages up to topLevel, when it is
// the root of its space there (the layout BinomialGather/Scatter produce/consume).
std::vector<int> collectionOrder(const Levels& lv, int rank, int root, int topLevel);

// Copies between a packed collection (ranks in `order`, rankBytes[r] bytes each,
// from `packed`) and typed blocks typedOf(r), skipping rank `skip`. Ranks adjacent
// in `order` whose typed blocks are adjacent (adjacent(a, b)) share one copy.
Deps copyRuns(ScheduleBuilder& b, const std::vector<int>& order, int skip,
              const std::vector<size_t>& rankBytes, BufRef packed,
              const std::function<Block(int)>& typedOf, const std::function<bool(int, int)>& adjacent,
              bool toTyped, const Deps& deps);

// Allgather of blocks of rankBytes[r] bytes over the decomposition: gather to the
// outermost leaders (binomial per level), ring among the leaders, broadcast the packed
// whole down every level, and every rank unpacks it into typedOf(r) (runs merged).
// `own` is this rank's block; if ownInPlace it already sits in typedOf(rank).
void emitHierAllgather(ScheduleBuilder& b, const Levels& lv, const std::vector<size_t>& rankBytes,
                       Block own, bool ownInPlace, const std::function<Block(int)>& typedOf,
                       const std::function<bool(int, int)>& adjacent, size_t segmentBytes);

// A one-stage (flat) gather or scatter whose root can move every child's subtree to or
// from the user's buffer as is: the stage's group is the communicator in rank order and
// no subtree's virtual range wraps past the last rank (with root 0 none does). Then the
// root needs no packed copy of all n blocks.
bool rootRunsAreContiguous(int commSize, const Stage& s, const MemberTree& t);

}  // namespace hieragg::recipes::dm
