// Decomposition of one communicator into nested subspaces plus a leader space
// (SPEC 3.1). Pure data: built from every rank's identity, so every rank of a
// communicator computes the same hierarchy without further communication.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hieragg/hier/SplitSpec.hpp"

namespace hieragg::hier {

// What each rank contributes to the decomposition (exchanged once per communicator).
struct RankIdentity {
    int worldRank = -1;     // rank in MPI_COMM_WORLD (file: groups are world ranks)
    std::string hostname;   // node name (node and topology: levels)
    int numa = -1;          // NUMA domain index on its node, -1 if unknown / unbound
};

// A space: the ranks that run one flat piece of a collective together.
struct Space {
    int level = 0;             // 0 = innermost subspace ... levels() = leader space
    std::vector<int> members;  // communicator ranks, ascending
    int leader = -1;           // the member that represents this space one level up
    bool contains(int rank) const;
    int indexOf(int rank) const;  // position in members, -1 if absent
};

class Hierarchy {
public:
    // Flat hierarchy: one level whose groups are single ranks (no decomposition).
    static Hierarchy flat(int commSize);
    // groupOf[l][r] = group id of rank r at level l (ids need not be dense or nested;
    // the constructor refines level l by all outer levels so groups always nest).
    static Hierarchy fromKeys(int commSize, const std::vector<std::vector<int64_t>>& groupOf);

    int commSize() const { return size_; }
    int levels() const { return static_cast<int>(groupOf_.size()); }
    // Dense group id of `rank` at `level` (0..levels()-1); groups nest outward.
    int groupOf(int level, int rank) const { return groupOf_[level][rank]; }
    int groupCount(int level) const { return static_cast<int>(groups_[level].size()); }
    const std::vector<int>& groupMembers(int level, int group) const { return groups_[level][group]; }

    // Leader of the level-`level` group of `rank` for a collective rooted at `root`
    // (root < 0: unrooted): the root if it is in the group, else its lowest rank.
    // level == levels() is the whole communicator (the leader space's leader).
    int leaderOf(int level, int rank, int root) const;

    // The space at `level` that `rank` takes part in, or an empty Space if it takes part
    // in none at that level. Level 0: the ranks of rank's innermost group. Level l in
    // 1..levels()-1: the leaders of the level-(l-1) groups inside rank's level-l group.
    // Level levels(): the leader space, leaders of all outermost groups.
    Space space(int level, int rank, int root) const;

    // True if no level actually splits the communicator, i.e. every level has one
    // group or only single-rank groups: the decomposition adds nothing over flat.
    bool isTrivial() const;

    // Human-readable summary: levels, subspace sizes, leaders (for coll_hieragg_verbose).
    std::string describe(const std::vector<std::string>& levelNames) const;

private:
    int size_ = 0;
    std::vector<std::vector<int>> groupOf_;              // [level][rank] -> dense id
    std::vector<std::vector<std::vector<int>>> groups_;  // [level][group] -> ranks ascending
    // [level][group] -> level-(level-1) group ids inside it, ascending; [levels()][0] = all
    // outermost groups. Lets space() run in O(space size) instead of scanning the comm.
    std::vector<std::vector<std::vector<int>>> children_;
};

}  // namespace hieragg::hier
