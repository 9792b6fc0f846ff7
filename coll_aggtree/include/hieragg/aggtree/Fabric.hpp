// A network fabric as an undirected graph of switches and NICs (network ports).
//
// Conventions:
// - Switches and NICs share one dense vertex id space 0..vertexCount()-1, in the
//   order they were added. A NIC belongs to a compute node (several NICs per node
//   are allowed: the paper's nodes have 2 ports); traffic between NICs of the same
//   node, or between processes on the same NIC, crosses no link.
// - Links have dense ids 0..linkCount()-1. A link's two directions are told apart
//   by its endpoints: "forward" is a -> b as given to connect().
// - A NIC normally has one link (to its leaf switch); NICs never forward traffic,
//   so shortest paths only pass through switches.
// - Processes are placed on NICs by a ProcessPlacement (rank -> NIC vertex), with
//   any multiplicity.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace hieragg::aggtree {

enum class VertexKind { Switch, Nic };

struct FabricLink {
    int a = -1;  // endpoint vertices; "forward" direction is a -> b
    int b = -1;
};

class Fabric {
public:
    static constexpr int kUnreachable = -1;

    // level: 0 for leaf switches, growing towards the top (informational; used by reports).
    int addSwitch(std::string name, int level = 0);
    // node: the compute node the NIC sits in (dense ids chosen by the caller).
    int addNic(std::string name, int node);
    // Returns the new link id. Throws std::invalid_argument on bad ids, self loops,
    // or a NIC-to-NIC link.
    int connect(int a, int b);

    int vertexCount() const { return static_cast<int>(kind_.size()); }
    int linkCount() const { return static_cast<int>(links_.size()); }
    VertexKind kind(int v) const { return kind_.at(v); }
    bool isSwitch(int v) const { return kind(v) == VertexKind::Switch; }
    bool isNic(int v) const { return kind(v) == VertexKind::Nic; }
    const std::string& name(int v) const { return name_.at(v); }
    int level(int v) const { return level_.at(v); }      // switches only (NICs: -1)
    int nodeOf(int nic) const { return node_.at(nic); }  // NICs only (switches: -1)
    const std::vector<int>& switches() const { return switches_; }
    const std::vector<int>& nics() const { return nics_; }
    const FabricLink& link(int id) const { return links_.at(id); }
    // (neighbour vertex, link id) pairs in the order links were added.
    const std::vector<std::pair<int, int>>& adjacent(int v) const { return adj_.at(v); }
    // Id of a link between a and b (the first one added), or -1.
    int linkBetween(int a, int b) const;
    // Vertex id of the vertex with this name, or -1 (linear scan; for tests and tools).
    int findByName(const std::string& name) const;

    // Hop counts (links) from `from` to every vertex, never passing through a NIC
    // other than `from` itself; kUnreachable where no path exists. O(V + E).
    std::vector<int> hopsFrom(int from) const;

    // A deterministic shortest path from NIC/switch `from` to `to`, as link ids in order.
    // Equal-cost choices are made by the destination (like destination-based routing in
    // InfiniBand/fat-tree d-mod-k): the path to a given destination is the same from
    // every source that shares a prefix. Empty if from == to, from and to are NICs of
    // the same node, or `to` is unreachable (check with hopsFrom when that matters).
    std::vector<int> route(int from, int to) const;

    // Routing towards one destination: nextLink[v] is the link v uses as its first hop,
    // -1 at the destination and where unreachable. Cache this when routing many sources
    // to the same destination.
    struct RoutesTo {
        int destination = -1;
        std::vector<int> hops;      // hop counts to destination
        std::vector<int> nextLink;  // first link on the chosen shortest path
    };
    RoutesTo routesTo(int destination) const;

private:
    std::vector<VertexKind> kind_;
    std::vector<std::string> name_;
    std::vector<int> level_;
    std::vector<int> node_;
    std::vector<int> switches_;
    std::vector<int> nics_;
    std::vector<FabricLink> links_;
    std::vector<std::vector<std::pair<int, int>>> adj_;
};

// Processes placed on NICs: nicOfRank[r] is the NIC vertex of process r.
struct ProcessPlacement {
    std::vector<int> nicOfRank;

    int size() const { return static_cast<int>(nicOfRank.size()); }
    // Processes per NIC, indexed by fabric vertex (0 for switches and unused NICs).
    std::vector<int> multiplicity(const Fabric& fabric) const;
    // Distinct NICs used, in order of their first rank.
    std::vector<int> distinctNics() const;
    // Throws std::invalid_argument if some rank is not on a NIC of `fabric`.
    void validate(const Fabric& fabric) const;
};

// `perNic` consecutive ranks on each NIC, NICs taken in fabric.nics() order starting at
// `firstNic`; throws std::invalid_argument if the fabric has too few NICs.
ProcessPlacement placeBlock(const Fabric& fabric, int processes, int perNic = 1, int firstNic = 0);

}  // namespace hieragg::aggtree
