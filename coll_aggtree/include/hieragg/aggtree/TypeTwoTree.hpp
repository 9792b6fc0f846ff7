// Type II aggregation trees (SPEC 3.2, Chen et al. 2024 section 4): inner vertices
// are switches that aggregate in the network, leaves are the communicator's NICs.
//
// Steps: (1) candidate roots = switches minimising the largest hop count to the
// communicator's NICs, ordered by load; (2) physical tree = shortest-path tree from
// the root to every NIC; (3) minimum-cost tree = keep as few switches as possible,
// re-attaching every kept vertex to any kept ancestor, at most K(sw) children per
// switch; (4) allocation against per-switch aggregation-entry budgets, trying the
// next root on failure and finally reporting a fallback to a type I tree.
//
// Several processes on one NIC are combined by the NIC before the tree (the tree's
// leaves are NICs, not ranks): pass ProcessPlacement::distinctNics() as `nics`.
#pragma once
#include "hieragg/aggtree/Fabric.hpp"
#include "hieragg/aggtree/Tree.hpp"

#include <string>
#include <vector>

namespace hieragg::aggtree {

// A type II tree on a fabric. Tree vertex v stands for fabric vertex fabricVertex[v];
// the root is a switch, leaves are NICs. linksToParent[v] lists the fabric links a
// packet from v crosses to reach its tree parent (child-to-parent order; one link in a
// physical tree, several after re-attachment to a farther ancestor; empty at the root).
struct TypeTwoTree {
    Tree tree;
    std::vector<int> fabricVertex;
    std::vector<std::vector<int>> linksToParent;

    // Fabric vertices of the tree's switches (each uses one aggregation entry).
    std::vector<int> switchVertices(const Fabric& fabric) const;
    int switchCount(const Fabric& fabric) const { return static_cast<int>(switchVertices(fabric).size()); }
    // Largest number of links from a leaf to the root along the tree (the model's r).
    int radiusLinks() const;
};

// Switches minimising max over `nics` of the hop count, sorted by vertex id; `radius`
// receives that hop count (-1 if no switch reaches them all). Bitset BFS over the switch
// graph: O(D·E·|nics|/64) for fabric diameter D.
std::vector<int> rootCandidates(const Fabric& fabric, const std::vector<int>& nics, int* radius = nullptr);

// The shortest-path tree from `root` to every NIC in `nics`, pruned to the switches on
// those paths (BFS over switches; ties go to the first-discovered parent). Throws
// std::invalid_argument if `root` is not a switch or a NIC is unreachable.
TypeTwoTree physicalTree(const Fabric& fabric, int root, const std::vector<int>& nics);

// Result of the minimum-cost reduction.
struct ReducedTree {
    bool feasible = false;  // false: no derived tree meets the degree limits / keepable set
    TypeTwoTree tree;
};

// Minimum-cost type II tree derived from `physical` (algorithm 5, solved exactly):
// every NIC of `physical` stays; a kept vertex's parent is any kept ancestor in
// `physical`; a kept switch sw has at most maxChildren[sw] children (indexed by fabric
// vertex); the number of kept switches is minimal. `keepable` (by fabric vertex, may be
// empty = all) excludes switches without a free entry; the physical root must be kept.
// Tree DP over "unassigned vertices passed upwards" capped by an increasing switch
// budget B: O(n·OPT) time, O(n + OPT·maxdegree) extra memory, n = switches in `physical`.
ReducedTree minimumCostTree(const Fabric& fabric, const TypeTwoTree& physical,
                            const std::vector<int>& maxChildren, const std::vector<char>& keepable = {});

// K(sw) = k for every vertex.
std::vector<int> uniformDegreeLimit(const Fabric& fabric, int k);

// Shared resources a sequence of allocations consumes.
struct FabricLoad {
    std::vector<int> freeEntries;  // aggregation entries left per fabric vertex (switches)
    std::vector<long long> linkLoad;  // type II trees crossing each link so far

    static FabricLoad withEntries(const Fabric& fabric, int entriesPerSwitch);
    // Takes one entry on every switch of `tree` and adds its links' load.
    void commit(const Fabric& fabric, const TypeTwoTree& tree);
};

// Candidates ordered by load: most free entries first, then least load on the root's
// links, then vertex id.
std::vector<int> orderRootsByLoad(const Fabric& fabric, std::vector<int> candidates, const FabricLoad& load);

enum class TypeTwoMethod { Physical, MinimumCost };
enum class TypeTwoStatus { Allocated, FallbackTypeOne };
const char* typeTwoMethodName(TypeTwoMethod m);

struct TypeTwoAllocation {
    TypeTwoStatus status = TypeTwoStatus::FallbackTypeOne;
    TypeTwoTree tree;       // valid when Allocated
    int root = -1;          // fabric vertex of the accepted root
    int rootsTried = 0;
    std::string reason;     // why the fallback happened ("" when allocated)
};

// Tries the candidate roots in load order: builds the physical tree (and for MinimumCost
// its reduction restricted to switches with free entries); accepts the first tree whose
// switches all have a free entry and respect maxChildren; commits it to `load`. If no
// root works, returns FallbackTypeOne (the caller builds a type I tree) and leaves
// `load` unchanged. `candidates` may pass rootCandidates(fabric, nics) computed earlier
// (it does not depend on the load). Shortcut for Physical: a NIC whose only switch has
// no free entry fails every root at once (that switch is in every physical tree).
TypeTwoAllocation allocateTypeTwoTree(const Fabric& fabric, const std::vector<int>& nics, TypeTwoMethod method,
                                      const std::vector<int>& maxChildren, FabricLoad& load,
                                      const std::vector<int>* candidates = nullptr);

}  // namespace hieragg::aggtree
