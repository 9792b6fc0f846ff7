#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Decomposition.hpp"
#include "hier_reference.hpp"

using hieragg::hier::decompose;
using hieragg::hier::decomposeValue;
using hieragg::hier::DecompositionResult;
using hieragg::hier::Hierarchy;
using hieragg::hier::RankIdentity;
using hieragg::hier::SplitLevel;
using hieragg::hier::SplitSpec;
namespace ref = hieragg::hier::testref;
namespace fs = std::filesystem;

using Groups = std::vector<std::vector<int>>;

namespace {

// Identities of ranks 0..n-1 with world rank = comm rank.
std::vector<RankIdentity> identities(const std::vector<std::string>& hosts, const std::vector<int>& numa = {}) {
    std::vector<RankIdentity> all(hosts.size());
    for (size_t r = 0; r < hosts.size(); ++r) {
        all[r].worldRank = static_cast<int>(r);
        all[r].hostname = hosts[r];
        all[r].numa = numa.empty() ? -1 : numa[r];
    }
    return all;
}

std::vector<RankIdentity> sameHost(int n) { return identities(std::vector<std::string>(n, "h")); }

Groups groupsAt(const Hierarchy& h, int level) {
    Groups out;
    for (int g = 0; g < h.groupCount(level); ++g) out.push_back(h.groupMembers(level, g));
    return out;
}

// Groups by hostname, in order of lowest rank: what the "node" fallback must produce.
Groups nodeGroups(const std::vector<RankIdentity>& all) {
    Groups out;
    std::map<std::string, size_t> index;
    for (size_t r = 0; r < all.size(); ++r) {
        auto [it, fresh] = index.emplace(all[r].hostname, out.size());
        if (fresh) out.emplace_back();
        out[it->second].push_back(static_cast<int>(r));
    }
    return out;
}

DecompositionResult decomposeOk(const std::string& value, const std::vector<RankIdentity>& all) {
    DecompositionResult res = decomposeValue(value, all);
    EXPECT_FALSE(res.fellBack()) << value << ": " << res.warning;
    EXPECT_TRUE(res.warning.empty());
    EXPECT_EQ(static_cast<int>(res.levelNames.size()), res.hierarchy.levels());
    return res;
}

// The value must fall back to "node" with a warning that names the parameter and every `mention`.
void expectNodeFallback(const std::string& value, const std::vector<RankIdentity>& all,
                        const std::vector<std::string>& mentions) {
    DecompositionResult res = decomposeValue(value, all);
    EXPECT_TRUE(res.fellBack()) << value;
    EXPECT_NE(res.warning.find("coll_hieragg_split"), std::string::npos) << res.warning;
    EXPECT_NE(res.warning.find("'node'"), std::string::npos) << res.warning;
    for (const std::string& m : mentions) EXPECT_NE(res.warning.find(m), std::string::npos) << "'" << m << "' not in: " << res.warning;
    EXPECT_EQ(res.applied.text(), "node");
    EXPECT_EQ(res.levelNames, std::vector<std::string>{"node"});
    ASSERT_EQ(res.hierarchy.levels(), 1);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), nodeGroups(all)) << value;
}

class TempDir {
public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "hier_decomp_XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    std::string write(const std::string& name, const std::string& content) const {
        const fs::path p = path_ / name;
        std::ofstream(p) << content;
        return p.string();
    }
    std::string path(const std::string& name) const { return (path_ / name).string(); }

private:
    fs::path path_;
};

}  // namespace

TEST(Decomposition, NodeGroupsByHostnameInRankOrder) {
    // "zeta" sorts last but owns rank 0: ids follow ranks, not names.
    auto all = identities({"zeta", "alpha", "zeta", "mid", "alpha"});
    DecompositionResult res = decomposeOk("node", all);
    ASSERT_EQ(res.hierarchy.levels(), 1);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 2}, {1, 4}, {3}}));
    EXPECT_EQ(res.levelNames, std::vector<std::string>{"node"});
    EXPECT_EQ(res.applied.text(), "node");
}

TEST(Decomposition, NumaNestsInNode) {
    auto all = identities({"A", "A", "A", "A", "A", "A", "B", "B", "B", "B"}, {0, 1, 0, 1, 0, 1, 0, 0, 1, 1});
    DecompositionResult res = decomposeOk("numa,node", all);
    ASSERT_EQ(res.hierarchy.levels(), 2);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 2, 4}, {1, 3, 5}, {6, 7}, {8, 9}}));
    EXPECT_EQ(groupsAt(res.hierarchy, 1), (Groups{{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9}}));
    EXPECT_EQ(res.levelNames, (std::vector<std::string>{"numa", "node"}));
    // The same NUMA index on two hosts is two domains even without a node level.
    DecompositionResult alone = decomposeOk("numa", all);
    EXPECT_EQ(groupsAt(alone.hierarchy, 0), (Groups{{0, 2, 4}, {1, 3, 5}, {6, 7}, {8, 9}}));
}

TEST(Decomposition, UnknownNumaKeepsTheWholeNodeTogether) {
    auto all = identities({"A", "A", "A", "B", "B"}, {0, -1, 1, 0, 1});
    DecompositionResult res = decomposeOk("numa,node", all);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 1, 2}, {3}, {4}}));
}

TEST(Decomposition, VirtualBlocksIncludingUnevenAndSingletons) {
    auto all = sameHost(10);
    EXPECT_EQ(groupsAt(decomposeOk("virtual:4", all).hierarchy, 0), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
    EXPECT_EQ(groupsAt(decomposeOk("virtual:1", all).hierarchy, 0),
              (Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}}));
    EXPECT_EQ(groupsAt(decomposeOk("virtual:100", all).hierarchy, 0), (Groups{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}}));
    EXPECT_TRUE(decomposeOk("virtual:1", all).hierarchy.isTrivial());
    EXPECT_FALSE(decomposeOk("virtual:4", all).hierarchy.isTrivial());
}

TEST(Decomposition, RoundRobin) {
    auto all = sameHost(7);
    EXPECT_EQ(groupsAt(decomposeOk("roundrobin:3", all).hierarchy, 0), (Groups{{0, 3, 6}, {1, 4}, {2, 5}}));
}

TEST(Decomposition, NestedVirtualLevels) {
    auto all = sameHost(10);
    DecompositionResult res = decomposeOk("virtual:2,virtual:4", all);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}}));
    EXPECT_EQ(groupsAt(res.hierarchy, 1), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
    // virtual:3 inside virtual:4 does not nest: the inner level is cut at the outer borders.
    DecompositionResult cut = decomposeOk("virtual:3,virtual:4", all);
    EXPECT_EQ(groupsAt(cut.hierarchy, 0), (Groups{{0, 1, 2}, {3}, {4, 5}, {6, 7}, {8}, {9}}));
}

TEST(Decomposition, RoundRobinInsideVirtualAndTheReverse) {
    auto all = sameHost(10);
    DecompositionResult rrIn = decomposeOk("roundrobin:2,virtual:4", all);
    EXPECT_EQ(groupsAt(rrIn.hierarchy, 0), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8}, {9}}));
    EXPECT_EQ(groupsAt(rrIn.hierarchy, 1), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
    // Blocks inside round robin: blocks get cut by the outer round-robin classes.
    DecompositionResult blockIn = decomposeOk("virtual:4,roundrobin:2", all);
    EXPECT_EQ(groupsAt(blockIn.hierarchy, 0), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8}, {9}}));
    EXPECT_EQ(groupsAt(blockIn.hierarchy, 1), (Groups{{0, 2, 4, 6, 8}, {1, 3, 5, 7, 9}}));
}

TEST(Decomposition, RandomSpecsMatchReferenceKeys) {
    std::mt19937 rng(4242);
    const std::vector<std::string> kinds = {"node", "numa", "virtual", "roundrobin"};
    for (int iter = 0; iter < 300; ++iter) {
        const int n = std::uniform_int_distribution<int>(1, 20)(rng);
        const int hosts = std::uniform_int_distribution<int>(1, 4)(rng);
        std::vector<RankIdentity> all(n);
        for (int r = 0; r < n; ++r) {
            all[r].worldRank = r;
            all[r].hostname = "host" + std::to_string(std::uniform_int_distribution<int>(0, hosts - 1)(rng));
            all[r].numa = std::uniform_int_distribution<int>(iter % 4 == 0 ? -1 : 0, 2)(rng);
        }
        // Reference keys computed here, independently of Decomposition.cpp.
        std::map<std::string, bool> hostHasUnknown;
        for (const auto& id : all) hostHasUnknown[id.hostname] |= id.numa < 0;
        std::string value;
        ref::Keys keys;
        std::vector<std::string> used;
        const int L = std::uniform_int_distribution<int>(1, 3)(rng);
        for (int l = 0; l < L; ++l) {
            std::string kind = kinds[std::uniform_int_distribution<size_t>(0, kinds.size() - 1)(rng)];
            const int N = std::uniform_int_distribution<int>(1, 6)(rng);
            std::string item = kind == "virtual" || kind == "roundrobin" ? kind + ":" + std::to_string(N) : kind;
            if (std::find(used.begin(), used.end(), item) != used.end()) continue;
            used.push_back(item);
            value += (value.empty() ? "" : ",") + item;
            std::vector<int64_t> k(n);
            for (int r = 0; r < n; ++r) {
                const int64_t host = std::stoi(all[r].hostname.substr(4));
                if (kind == "node") k[r] = host;
                else if (kind == "numa") k[r] = host * 100 + (hostHasUnknown[all[r].hostname] ? 99 : all[r].numa);
                else if (kind == "virtual") k[r] = r / N;
                else k[r] = r % N;
            }
            keys.push_back(k);
        }
        DecompositionResult res = decomposeOk(value, all);
        ASSERT_EQ(res.hierarchy.levels(), static_cast<int>(keys.size())) << value;
        for (int l = 0; l < res.hierarchy.levels(); ++l)
            ASSERT_EQ(groupsAt(res.hierarchy, l), ref::denseGroups(keys, l)) << value << " level " << l;
    }
}

TEST(Decomposition, FileGroupsUseWorldRanks) {
    TempDir dir;
    const std::string path = dir.write("groups.txt",
                                       "# explicit groups, one per line\n"
                                       "0-3, 12\n"
                                       "\n"
                                       "5 7   # trailing comment\n"
                                       "8-11\n");
    // A communicator of six processes holding these world ranks.
    std::vector<RankIdentity> all = sameHost(6);
    const int world[] = {10, 3, 7, 0, 12, 5};
    for (int r = 0; r < 6; ++r) all[r].worldRank = world[r];
    DecompositionResult res = decomposeOk("file:" + path, all);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0}, {1, 3, 4}, {2, 5}}));
    EXPECT_EQ(res.levelNames, std::vector<std::string>{"file:" + path});
}

TEST(Decomposition, FileGroupsAreRefinedByOuterLevels) {
    TempDir dir;
    const std::string path = dir.write("g", "0,1,2\n3,4,5\n");
    auto all = identities({"a", "a", "b", "b", "b", "b"});
    DecompositionResult res = decomposeOk("file:" + path + ",node", all);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 1}, {2}, {3, 4, 5}}));
    EXPECT_EQ(groupsAt(res.hierarchy, 1), (Groups{{0, 1}, {2, 3, 4, 5}}));
}

TEST(Decomposition, InlineFileGroups) {
    auto all = sameHost(8);
    DecompositionResult res = decomposeOk("file:{0-1,6;2-5; 7},virtual:4", all);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 1}, {2, 3}, {4, 5}, {6}, {7}}));
    EXPECT_EQ(groupsAt(res.hierarchy, 1), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(Decomposition, TopologyLeafSwitches) {
    TempDir dir;
    const std::string conf = dir.write("topology.conf",
                                       "SwitchName=s0 Nodes=n[0-1]\n"
                                       "SwitchName=s1 Nodes=n[2-3]\n"
                                       "SwitchName=top Switches=s[0-1]\n");
    // Host names may come back fully qualified from gethostname().
    auto all = identities({"n2", "n0", "n1", "n3.cluster.local", "n2", "n0"});
    DecompositionResult res = decomposeOk("node,topology:" + conf, all);
    ASSERT_EQ(res.hierarchy.levels(), 2);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 4}, {1, 5}, {2}, {3}}));
    EXPECT_EQ(groupsAt(res.hierarchy, 1), (Groups{{0, 3, 4}, {1, 2, 5}}));
}

// Three switch levels: leaves l0..l3 (two hosts each), m0 over l0,l1, m1 over l2,l3, top
// over m0,m1. References below are worked out by hand from this file.
const char* const kThreeLevelTopology =
    "SwitchName=top Switches=m[0-1]\n"  // parents may come before their children
    "SwitchName=m0 Switches=l[0-1]\n"
    "SwitchName=m1 Switches=l[2-3]\n"
    "SwitchName=l0 Nodes=n[0-1]\n"
    "SwitchName=l1 Nodes=n[2-3]\n"
    "SwitchName=l2 Nodes=n[4-5]\n"
    "SwitchName=l3 Nodes=n[6-7]\n";

TEST(Decomposition, TopologyUsesEverySwitchLevel) {
    TempDir dir;
    const std::string conf = dir.write("three.conf", kThreeLevelTopology);
    // rank: 0  1  2  3  4  5  6  7
    // leaf: l2 l0 l3 l1 l0 l3 l1 l2;  middle: m1 m0 m1 m0 m0 m1 m0 m1;  top: one group, pruned.
    auto all = identities({"n5", "n0", "n7.cluster", "n2", "n1", "n6", "n3", "n4"});
    DecompositionResult res = decomposeOk("topology:" + conf, all);
    ASSERT_EQ(res.hierarchy.levels(), 2);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 7}, {1, 4}, {2, 5}, {3, 6}}));
    EXPECT_EQ(groupsAt(res.hierarchy, 1), (Groups{{0, 2, 5, 7}, {1, 3, 4, 6}}));
    EXPECT_EQ(res.levelNames[0], "topology:" + conf);
    EXPECT_EQ(res.levelNames[1], "topology:" + conf + " (switch level 1)");
    EXPECT_TRUE(res.notice.empty());

    // With node below: hosts n0,n1 hold two ranks each, n2,n3 one.
    auto four = identities({"n0", "n2", "n1", "n0", "n3", "n1"});
    res = decomposeOk("node,topology:" + conf, four);
    ASSERT_EQ(res.hierarchy.levels(), 2);  // m0 holds all of them: middle and top pruned
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 3}, {1}, {2, 5}, {4}}));
    EXPECT_EQ(groupsAt(res.hierarchy, 1), (Groups{{0, 2, 3, 5}, {1, 4}}));
}

TEST(Decomposition, TopologySwitchLevelsArePricedAsSwitchLinks) {
    TempDir dir;
    const std::string conf = dir.write("three.conf", kThreeLevelTopology);
    auto all = identities({"n0", "n2", "n4", "n6", "n1", "n3", "n5", "n7", "n0"});
    DecompositionResult res = decomposeOk("node,topology:" + conf, all);
    ASSERT_EQ(res.hierarchy.levels(), 3);  // node, leaf switch, middle switch
    // Inside a node; inside a leaf switch (between nodes); inside a middle switch (between
    // leaf switches); the leaders of m0 and m1 talk across the top switch.
    using namespace hieragg::hier;
    EXPECT_EQ(stageLinks(res.levelNames, res.hierarchy.levels()),
              (std::vector<int>{kLinkNode, kLinkNetwork, kLinkSwitch, kLinkSwitch}));
}

TEST(Decomposition, TopologyPrunesLevelsThatSplitNothing) {
    TempDir dir;
    const std::string conf = dir.write("three.conf", kThreeLevelTopology);
    // All under one leaf: the leaf level stays, as one group.
    DecompositionResult res = decomposeOk("topology:" + conf, identities({"n1", "n0", "n1"}));
    ASSERT_EQ(res.hierarchy.levels(), 1);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 1, 2}}));
    // Under l0 and l2: the middle level (m0, m1) groups them exactly as the leaves do and
    // the top is one group, so both are pruned.
    res = decomposeOk("topology:" + conf, identities({"n0", "n4", "n1", "n5"}));
    ASSERT_EQ(res.hierarchy.levels(), 1);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 2}, {1, 3}}));

    // Unbalanced: n0's path is l0 -> m0 -> top, n2's is l1 -> top. One level up there are
    // two groups (m0, and top for n2), exactly the leaf groups, then one: both pruned.
    const std::string uneven = dir.write("uneven.conf",
                                         "SwitchName=l0 Nodes=n[0-1]\n"
                                         "SwitchName=m0 Switches=l0\n"
                                         "SwitchName=l1 Nodes=n[2-3]\n"
                                         "SwitchName=top Switches=m0,l1\n");
    res = decomposeOk("topology:" + uneven, identities({"n2", "n0", "n1", "n3"}));
    ASSERT_EQ(res.hierarchy.levels(), 1);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 3}, {1, 2}}));
}

TEST(Decomposition, TopologyTwoLevelForest) {
    // Two top switches: t0 over s0,s1 and t1 over s2. Leaf level has three groups and the
    // top level two, so both are kept.
    TempDir dir;
    const std::string conf = dir.write("forest.conf",
                                       "SwitchName=s0 Nodes=a[0-1]\n"
                                       "SwitchName=s1 Nodes=a[2-3]\n"
                                       "SwitchName=s2 Nodes=b[0-3]\n"
                                       "SwitchName=t0 Switches=s[0-1]\n"
                                       "SwitchName=t1 Switches=s2\n");
    // rank: 0:b1(s2,t1) 1:a0(s0,t0) 2:a3(s1,t0) 3:b2(s2,t1) 4:a1(s0,t0)
    DecompositionResult res = decomposeOk("topology:" + conf, identities({"b1", "a0", "a3", "b2", "a1"}));
    ASSERT_EQ(res.hierarchy.levels(), 2);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 3}, {1, 4}, {2}}));
    EXPECT_EQ(groupsAt(res.hierarchy, 1), (Groups{{0, 3}, {1, 2, 4}}));
}

TEST(Decomposition, TopologyLevelsRespectTheLevelCap) {
    TempDir dir;
    const std::string conf = dir.write("three.conf", kThreeLevelTopology);
    auto all = identities({"n0", "n2", "n4", "n6", "n1", "n3", "n5", "n7"});
    // Six levels before the topology leave room for one switch level of the two: the top
    // ones are dropped, with one notice; the request still applies.
    const std::string value = "virtual:1,roundrobin:8,virtual:2,roundrobin:4,virtual:3,roundrobin:2,topology:" + conf;
    DecompositionResult res = decomposeOk(value, all);
    ASSERT_EQ(res.hierarchy.levels(), 7);
    EXPECT_EQ(res.levelNames.back(), "topology:" + conf);
    EXPECT_EQ(groupsAt(res.hierarchy, 6), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
    EXPECT_NE(res.notice.find("coll_hieragg_split"), std::string::npos) << res.notice;
    EXPECT_NE(res.notice.find("2 switch levels"), std::string::npos) << res.notice;
    EXPECT_NE(res.notice.find("at most 7"), std::string::npos) << res.notice;
    // Five levels before: both fit, no notice.
    res = decomposeOk("virtual:1,roundrobin:8,virtual:2,roundrobin:4,virtual:3,topology:" + conf, all);
    EXPECT_EQ(res.hierarchy.levels(), 7);
    EXPECT_TRUE(res.notice.empty()) << res.notice;
}

TEST(Decomposition, TopologyFromSharedTestData) {
    std::vector<std::string> hosts;
    for (int i = 0; i < 64; i += 5) hosts.push_back((i < 10 ? "node0" : "node") + std::to_string(i));
    auto all = identities(hosts);  // node00 node05 node10 node15 | node20 node25 node30 | ...
    DecompositionResult res = decomposeOk(std::string("topology:") + HIERAGG_TEST_DATA_DIR "/slurm_topology_two_level.conf", all);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), (Groups{{0, 1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}}));
}

TEST(Decomposition, BadSpecFallsBackToNode) {
    auto all = identities({"a", "b", "a", "b"});
    expectNodeFallback("foo", all, {"unknown kind 'foo'"});
    expectNodeFallback("virtual:0", all, {"virtual:0", ">= 1"});
    expectNodeFallback("numa,,node", all, {"empty item"});
    expectNodeFallback("node,node", all, {"duplicate"});
    // A hand-built spec that bypassed the parser.
    SplitSpec bad;
    bad.levels.push_back(SplitLevel{SplitLevel::Kind::RoundRobin, 0, ""});
    DecompositionResult res = decompose(bad, all);
    EXPECT_NE(res.warning.find("coll_hieragg_split"), std::string::npos);
    EXPECT_EQ(groupsAt(res.hierarchy, 0), nodeGroups(all));
}

TEST(Decomposition, BadGroupFilesFallBackToNode) {
    TempDir dir;
    auto all = identities({"a", "b", "a", "b", "c"});  // world ranks 0..4
    const std::string missing = dir.path("missing.txt");
    expectNodeFallback("file:" + missing, all, {missing, "cannot open"});
    expectNodeFallback("file:" + dir.path(""), all, {"directory"});
    std::string p = dir.write("token", "0-2\n3,x\n4\n");
    expectNodeFallback("file:" + p, all, {p + ":2:", "'x'"});
    p = dir.write("range", "0-1\n4-2\n");
    expectNodeFallback("file:" + p, all, {p + ":2:", "reversed"});
    p = dir.write("open", "0-\n");
    expectNodeFallback("file:" + p, all, {p + ":1:", "'0-'"});
    p = dir.write("negative", "-1,0-4\n");
    expectNodeFallback("file:" + p, all, {p + ":1:"});
    p = dir.write("twice", "0,1\n2-3\n# next line repeats 1\n4,1\n");
    expectNodeFallback("file:" + p, all, {p + ":4:", "world rank 1 listed twice", "line 1"});
    p = dir.write("twiceSameLine", "0,1,2-4,2\n");
    expectNodeFallback("file:" + p, all, {p + ":1:", "world rank 2 listed twice"});
    p = dir.write("uncovered", "0-2\n4\n");
    expectNodeFallback("file:" + p, all, {p, "world rank 3", "in no group"});
    p = dir.write("empty", "");
    expectNodeFallback("file:" + p, all, {p, "no groups"});
    p = dir.write("comments", "# nothing\n   \n# here\n");
    expectNodeFallback("file:" + p, all, {p, "no groups"});
    p = dir.write("huge", "0-2000000000\n");
    expectNodeFallback("file:" + p, all, {p + ":1:", "too many"});
    // A bad level anywhere in a multi-level value discards the whole value.
    expectNodeFallback("numa,file:" + missing + ",virtual:2", all, {missing});
}

TEST(Decomposition, BadInlineGroupsFallBackToNode) {
    auto all = identities({"a", "b", "a", "b"});
    expectNodeFallback("file:{0-1;x}", all, {"inline group list, group 2: 'x'"});
    expectNodeFallback("file:{0-1;1-3}", all, {"group 2", "listed twice"});
    expectNodeFallback("file:{0-2}", all, {"world rank 3", "in no group"});
    expectNodeFallback("file:{;}", all, {"no groups"});
    expectNodeFallback("file:{0-1#;2-3}", all, {"group 1"});
}

TEST(Decomposition, BadTopologyFallsBackToNode) {
    TempDir dir;
    auto all = identities({"n0", "n1", "n2"});
    const std::string missing = dir.path("nope.conf");
    expectNodeFallback("topology:" + missing, all, {missing, "cannot open"});
    std::string p = dir.write("malformed.conf", "SwitchName=s0 Nodes=n[0-2]\nSwitchName=s1 Bogus\n");
    expectNodeFallback("topology:" + p, all, {p + ":2:"});
    p = dir.write("hostlist.conf", "SwitchName=s0 Nodes=n[2-0]\n");
    expectNodeFallback("topology:" + p, all, {p + ":1:"});
    p = dir.write("partial.conf", "SwitchName=s0 Nodes=n[0-1]\n");
    expectNodeFallback("node,topology:" + p, all, {p, "host 'n2'", "communicator rank 2"});
}

TEST(Decomposition, EveryRankGetsTheSameResult) {
    // Each rank calls decompose() on the same identities; results must not depend on
    // anything else (e.g. unordered containers): compare repeated runs and describe().
    auto all = identities({"c", "a", "b", "a", "c", "b", "a"}, {1, 0, 0, 1, 1, 0, 0});
    const std::string first = decomposeOk("numa,node,virtual:4", all).hierarchy.describe({});
    for (int i = 0; i < 5; ++i) EXPECT_EQ(decomposeOk("numa,node,virtual:4", all).hierarchy.describe({}), first);
}

TEST(Decomposition, ScalesTo100kRanks) {
    const int n = 100000;
    std::vector<RankIdentity> all(n);
    for (int r = 0; r < n; ++r) {
        all[r].worldRank = r;
        all[r].hostname = "node" + std::to_string(r / 64);
        all[r].numa = (r / 16) % 4;
    }
    const auto start = std::chrono::steady_clock::now();
    DecompositionResult res = decomposeOk("numa,node,virtual:4096", all);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(res.hierarchy.groupCount(1), (n + 63) / 64);
    EXPECT_LT(seconds, 5.0);
}
