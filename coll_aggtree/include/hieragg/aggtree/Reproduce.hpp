// Simulated reproductions of the paper's figures 16, 19 and 20 (SPEC 3.2). Pure functions
// return tables; write* functions put CSV and SVG files into a directory. The setups and
// our assumptions are documented in docs/aggtree-fabric.md.
#pragma once
#include "hieragg/aggtree/Fabric.hpp"
#include "hieragg/aggtree/Tree.hpp"
#include "hieragg/aggtree/TypeTwoTree.hpp"

#include <string>
#include <utility>
#include <vector>

namespace hieragg::aggtree {

// ---- Figure 16: inter-group aggregation packets on a 2-level pruned fat tree -------------
// 512 processes, 2 per node, 16 per leaf switch (rank r on leaf r/16), every leaf with a
// single uplink to one core switch. The trees (32-ary, 32-nomial, hierarchical 32-nomial)
// come from the type I builders; vertex r of each tree is rank r.
struct Fig16Setup {
    int processes = 512;
    int processesPerNode = 2;
    int processesPerLeaf = 16;
};

struct Fig16Row {
    std::string tree;
    long long rootLeafIn = 0;      // packets core -> root's leaf (reduction towards the root)
    long long rootLeafOut = 0;     // packets root's leaf -> core
    long long maxUplink = 0;       // most packets on any leaf uplink, either direction
    long long interLeaf = 0;       // packets whose sender and receiver are on different leaves
    long long totalLinkPackets = 0;
    double predictedUs = 0.0;      // TrafficModel time with default parameters
    std::vector<long long> upPerLeaf;    // packets leaf i -> core
    std::vector<long long> downPerLeaf;  // packets core -> leaf i
};

std::vector<Fig16Row> reproduceFig16(const std::vector<std::pair<std::string, Tree>>& trees, const Fig16Setup& setup = {});
// Writes fig16.csv (summary), fig16_links.csv (per leaf uplink) and fig16.svg.
void writeFig16(const std::vector<Fig16Row>& rows, const std::string& directory);

// ---- Figures 19 and 20: aggregation entries and failure rates --------------------------
// Communicators are lists of ranks; rank r sits on NIC r of the supernode fabric (one
// process per port, 2 ports per node, 512 ports per supernode).
struct CommunicatorPattern {
    std::string name;
    int processes = 0;
    std::vector<std::vector<int>> communicators;
};

// Every row/column (every line along each dimension) of a grid with dims[0] varying fastest.
CommunicatorPattern gridPattern(const std::string& name, const std::vector<int>& dims);
// `processes` ranks shuffled (seeded) and cut into communicators of `size`.
CommunicatorPattern randomPattern(const std::string& name, int processes, int size, unsigned seed);
// The five patterns: 2D 256x160 (aware), 2D 202x202 (unaware), 3D 32x16x80 (aware),
// 3D 34x34x35 (unaware), random (40960 ranks in communicators of 256).
std::vector<CommunicatorPattern> paperPatterns(unsigned seed = 1);

struct Fig1920Options {
    int supernodes = 80;           // 80 x 512 ports = 40960 >= every pattern
    int degreeLimit = 256;         // K(sw) for every switch
    int entriesPerSwitch = 16;     // figure 20 budget
    unsigned seed = 1;
};

struct Fig1920Row {
    std::string pattern;
    int communicators = 0;
    long long physicalEntries = 0;   // fig 19: unlimited entries
    long long minimumCostEntries = 0;
    double entryReductionPercent = 0.0;
    int physicalFailures = 0;        // fig 20: entriesPerSwitch per switch
    int minimumCostFailures = 0;
    double physicalFailurePercent = 0.0;
    double minimumCostFailurePercent = 0.0;
};

// Allocates every communicator of every pattern in sequence (fresh budgets per pattern and
// method). Patterns larger than the fabric throw std::invalid_argument.
std::vector<Fig1920Row> reproduceFig19And20(const std::vector<CommunicatorPattern>& patterns,
                                            const Fig1920Options& options = {});
// Writes fig19_20.csv, fig19.svg and fig20.svg.
void writeFig19And20(const std::vector<Fig1920Row>& rows, const std::string& directory);

}  // namespace hieragg::aggtree
