#include "hieragg/aggtree/FabricGenerators.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace hieragg::aggtree {

namespace {

void requirePositive(int value, const char* what) {
    if (value < 1) throw std::invalid_argument(std::string(what) + " must be >= 1");
}

// Adds `count` NICs under `leaf`, grouping consecutive NICs into nodes.
void addNicsUnder(Fabric& f, int leaf, int count, int nicsPerNode, const std::string& prefix) {
    for (int i = 0; i < count; ++i) {
        int global = static_cast<int>(f.nics().size());
        int nic = f.addNic(prefix + "nic" + std::to_string(global), global / nicsPerNode);
        f.connect(nic, leaf);
    }
}

}  // namespace

Fabric kAryNTree(int k, int n, int nicsPerNode) {
    requirePositive(n, "kAryNTree: n");
    requirePositive(nicsPerNode, "kAryNTree: nicsPerNode");
    if (k < 2) throw std::invalid_argument("kAryNTree: k must be >= 2");
    long long perLevel = 1;
    for (int i = 0; i + 1 < n; ++i) {
        perLevel *= k;
        if (perLevel > 50'000'000) throw std::invalid_argument("kAryNTree: too large");
    }
    Fabric f;
    std::vector<std::vector<int>> sw(n, std::vector<int>(perLevel));
    const char* names[] = {"leaf", "spine", "core"};
    for (int l = 0; l < n; ++l)
        for (long long w = 0; w < perLevel; ++w)
            sw[l][w] = f.addSwitch((l < 3 ? std::string(names[l]) : "l" + std::to_string(l) + "sw") +
                                       std::to_string(w),
                                   l);
    for (long long w = 0; w < perLevel; ++w) addNicsUnder(f, sw[0][w], k, nicsPerNode, "");
    long long weight = 1;  // k^l: value of digit l
    for (int l = 0; l + 1 < n; ++l, weight *= k) {
        for (long long w = 0; w < perLevel; ++w) {
            long long digit = (w / weight) % k;
            long long base = w - digit * weight;
            for (long long d = 0; d < k; ++d) f.connect(sw[l][w], sw[l + 1][base + d * weight]);
        }
    }
    return f;
}

Fabric twoLevelFatTree(int leaves, int nicsPerLeaf, int spines, int nicsPerNode) {
    requirePositive(leaves, "twoLevelFatTree: leaves");
    requirePositive(nicsPerLeaf, "twoLevelFatTree: nicsPerLeaf");
    requirePositive(spines, "twoLevelFatTree: spines");
    requirePositive(nicsPerNode, "twoLevelFatTree: nicsPerNode");
    Fabric f;
    std::vector<int> leaf(leaves), spine(spines);
    for (int i = 0; i < leaves; ++i) leaf[i] = f.addSwitch("leaf" + std::to_string(i), 0);
    for (int j = 0; j < spines; ++j) spine[j] = f.addSwitch("spine" + std::to_string(j), 1);
    for (int i = 0; i < leaves; ++i) addNicsUnder(f, leaf[i], nicsPerLeaf, nicsPerNode, "");
    for (int i = 0; i < leaves; ++i)
        for (int j = 0; j < spines; ++j) f.connect(leaf[i], spine[j]);
    return f;
}

Fabric prunedTwoLevelFatTree(int leaves, int nicsPerLeaf, int nicsPerNode) {
    requirePositive(leaves, "prunedTwoLevelFatTree: leaves");
    requirePositive(nicsPerLeaf, "prunedTwoLevelFatTree: nicsPerLeaf");
    requirePositive(nicsPerNode, "prunedTwoLevelFatTree: nicsPerNode");
    Fabric f;
    std::vector<int> leaf(leaves);
    for (int i = 0; i < leaves; ++i) leaf[i] = f.addSwitch("leaf" + std::to_string(i), 0);
    int core = f.addSwitch("core", 1);
    for (int i = 0; i < leaves; ++i) addNicsUnder(f, leaf[i], nicsPerLeaf, nicsPerNode, "");
    for (int i = 0; i < leaves; ++i) f.connect(leaf[i], core);  // the one shared uplink
    return f;
}

Fabric supernodeFabric(const SupernodeFabricSpec& s) {
    requirePositive(s.supernodes, "supernodeFabric: supernodes");
    requirePositive(s.leavesPerSupernode, "supernodeFabric: leavesPerSupernode");
    requirePositive(s.nicsPerLeaf, "supernodeFabric: nicsPerLeaf");
    requirePositive(s.spinesPerSupernode, "supernodeFabric: spinesPerSupernode");
    requirePositive(s.nicsPerNode, "supernodeFabric: nicsPerNode");
    if (s.nicsPerLeaf + s.spinesPerSupernode > s.switchPorts)
        throw std::invalid_argument("supernodeFabric: leaf needs more than switchPorts ports");
    int topPerPlane = s.supernodes > 1 ? s.topSwitchesPerPlane : 0;
    if (s.supernodes > 1 && topPerPlane < 1)
        throw std::invalid_argument("supernodeFabric: several supernodes need topSwitchesPerPlane >= 1");
    if (s.leavesPerSupernode + topPerPlane > s.switchPorts)
        throw std::invalid_argument("supernodeFabric: spine needs more than switchPorts ports");
    if (s.nicsPerLeaf % s.nicsPerNode != 0)
        throw std::invalid_argument("supernodeFabric: a node's NICs must sit on one leaf");

    Fabric f;
    std::vector<std::vector<int>> leaf(s.supernodes), spine(s.supernodes);
    for (int sn = 0; sn < s.supernodes; ++sn) {
        std::string p = "sn" + std::to_string(sn) + ".";
        for (int i = 0; i < s.leavesPerSupernode; ++i) leaf[sn].push_back(f.addSwitch(p + "leaf" + std::to_string(i), 0));
        for (int j = 0; j < s.spinesPerSupernode; ++j) spine[sn].push_back(f.addSwitch(p + "spine" + std::to_string(j), 1));
    }
    std::vector<std::vector<int>> top(s.spinesPerSupernode);
    for (int plane = 0; plane < s.spinesPerSupernode; ++plane)
        for (int t = 0; t < topPerPlane; ++t)
            top[plane].push_back(f.addSwitch("top.p" + std::to_string(plane) + ".t" + std::to_string(t), 2));
    for (int sn = 0; sn < s.supernodes; ++sn) {
        std::string p = "sn" + std::to_string(sn) + ".";
        for (int i = 0; i < s.leavesPerSupernode; ++i) addNicsUnder(f, leaf[sn][i], s.nicsPerLeaf, s.nicsPerNode, p);
    }
    for (int sn = 0; sn < s.supernodes; ++sn)
        for (int i = 0; i < s.leavesPerSupernode; ++i)
            for (int j = 0; j < s.spinesPerSupernode; ++j) f.connect(leaf[sn][i], spine[sn][j]);
    for (int plane = 0; plane < s.spinesPerSupernode; ++plane)
        for (int t = 0; t < topPerPlane; ++t)
            for (int sn = 0; sn < s.supernodes; ++sn) f.connect(spine[sn][plane], top[plane][t]);
    return f;
}

Fabric fabricFromSlurm(const SlurmTopology& topo, int nicsPerNode) {
    requirePositive(nicsPerNode, "fabricFromSlurm: nicsPerNode");
    const int n = static_cast<int>(topo.switches.size());
    std::unordered_map<std::string, int> index;
    for (int i = 0; i < n; ++i) index.emplace(topo.switches[i].name, i);
    auto childIndex = [&](const std::string& name) {
        auto it = index.find(name);
        if (it == index.end()) throw std::invalid_argument("fabricFromSlurm: undefined switch " + name);
        return it->second;
    };
    // Levels by memoised recursion; a parsed topology has no cycles, the guard catches hand-built ones.
    std::vector<int> level(n, -2);
    std::function<int(int)> levelOf = [&](int i) -> int {
        if (level[i] == -1) throw std::invalid_argument("fabricFromSlurm: switch cycle at " + topo.switches[i].name);
        if (level[i] >= 0) return level[i];
        level[i] = -1;
        int l = 0;
        for (const auto& c : topo.switches[i].switches) l = std::max(l, 1 + levelOf(childIndex(c)));
        return level[i] = l;
    };
    Fabric f;
    std::vector<int> vertex(n);
    for (int i = 0; i < n; ++i) vertex[i] = f.addSwitch(topo.switches[i].name, levelOf(i));
    int node = 0;
    for (int i = 0; i < n; ++i) {
        for (const auto& host : topo.switches[i].nodes) {
            for (int p = 0; p < nicsPerNode; ++p) {
                int nic = f.addNic(nicsPerNode == 1 ? host : host + ".p" + std::to_string(p), node);
                f.connect(nic, vertex[i]);
            }
            ++node;
        }
    }
    for (int i = 0; i < n; ++i)
        for (const auto& c : topo.switches[i].switches) f.connect(vertex[childIndex(c)], vertex[i]);
    return f;
}

}  // namespace hieragg::aggtree
