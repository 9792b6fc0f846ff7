// Slurm topology.conf (topology/tree plugin syntax):
//   SwitchName=s0 Nodes=n[0-15]
//   SwitchName=top Switches=s[0-3] LinkSpeed=...
// One parser serves both the fabric model (hieragg-plan) and the runtime
// decomposition (coll_hieragg_split=topology:PATH).
#pragma once
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace hieragg::aggtree {

struct SlurmSwitch {
    std::string name;
    std::vector<std::string> nodes;     // expanded host names directly attached
    std::vector<std::string> switches;  // expanded child switch names
    int line = 0;                       // 1-based line of its definition
};

// Thrown for unreadable or malformed input; what() is "FILE:LINE: problem"
// (or "FILE: problem" when no line applies).
struct TopologyParseError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct SlurmTopology {
    std::vector<SlurmSwitch> switches;  // in file order

    // Index into switches of the switch that lists `node` in Nodes=, or -1.
    int leafOf(const std::string& node) const;
    // Index of the parent switch of switches[i] (the one listing it in Switches=), or -1.
    int parentOf(int switchIndex) const;
    // Switch indices from node's leaf up to its top switch; empty if the node is unknown.
    std::vector<int> pathToTop(const std::string& node) const;
};

// Expand a Slurm hostlist expression: "n[0-3,7],gpu01" -> n0 n1 n2 n3 n7 gpu01.
// Zero padding is kept ("n[00-02]" -> n00 n01 n02). Throws std::invalid_argument.
std::vector<std::string> expandHostlist(const std::string& expr);

SlurmTopology parseSlurmTopology(std::istream& in, const std::string& filename);
SlurmTopology loadSlurmTopology(const std::string& path);  // missing file -> TopologyParseError

}  // namespace hieragg::aggtree
