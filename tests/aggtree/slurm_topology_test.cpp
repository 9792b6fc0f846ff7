#include "hieragg/aggtree/SlurmTopology.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace hieragg::aggtree;

namespace {

using Names = std::vector<std::string>;

SlurmTopology parse(const std::string& text, const std::string& file = "topo.conf") {
    std::istringstream in(text);
    return parseSlurmTopology(in, file);
}

// Returns the error message, or "" if parsing succeeded.
std::string parseError(const std::string& text) {
    try {
        parse(text);
    } catch (const TopologyParseError& e) {
        return e.what();
    }
    return "";
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST(ExpandHostlist, PlainNamesAndLists) {
    EXPECT_EQ(expandHostlist("gpu01"), (Names{"gpu01"}));
    EXPECT_EQ(expandHostlist("a,b,c"), (Names{"a", "b", "c"}));
    EXPECT_EQ(expandHostlist(""), Names{});
}

TEST(ExpandHostlist, RangesAndListsInsideBrackets) {
    EXPECT_EQ(expandHostlist("n[0-3,7],gpu01"), (Names{"n0", "n1", "n2", "n3", "n7", "gpu01"}));
    EXPECT_EQ(expandHostlist("n[5]"), (Names{"n5"}));
    EXPECT_EQ(expandHostlist("n[8-10]"), (Names{"n8", "n9", "n10"}));
    EXPECT_EQ(expandHostlist("n[0-15]").size(), 16u);
    EXPECT_EQ(expandHostlist("n[0-15]").back(), "n15");
}

TEST(ExpandHostlist, ZeroPaddingFollowsLowerBound) {
    EXPECT_EQ(expandHostlist("n[00-02]"), (Names{"n00", "n01", "n02"}));
    EXPECT_EQ(expandHostlist("n[08-10]"), (Names{"n08", "n09", "n10"}));
    EXPECT_EQ(expandHostlist("n[098-100]"), (Names{"n098", "n099", "n100"}));
}

TEST(ExpandHostlist, SeveralBracketedPartsFormAProduct) {
    EXPECT_EQ(expandHostlist("r[1-2]n[0-1]"), (Names{"r1n0", "r1n1", "r2n0", "r2n1"}));
    EXPECT_EQ(expandHostlist("r[1-2]-n[3]x"), (Names{"r1-n3x", "r2-n3x"}));
}

TEST(ExpandHostlist, RejectsMalformedExpressions) {
    for (const char* bad : {"n[0-3", "n0-3]", "n[]", "n[a-b]", "n[3-1]", "n[1--2]", "n[[1]]", "a,,b",
                            "a,", "n[1,,2]", "n[0-99999999]", "a b"}) {
        EXPECT_THROW(expandHostlist(bad), std::invalid_argument) << bad;
    }
}

TEST(SlurmTopology, ParsesTwoLevelTreeWithCommentsAndCaseInsensitiveKeys) {
    auto topo = parse(
        "# two leaf switches and a top switch\n"
        "\n"
        "SwitchName=s0 Nodes=n[0-1]   # trailing comment\n"
        "switchname=s1 NODES=n[2-3] LinkSpeed=100\n"
        "   SwitchName=top Switches=s[0-1]\n");
    ASSERT_EQ(topo.switches.size(), 3u);
    EXPECT_EQ(topo.switches[0].name, "s0");
    EXPECT_EQ(topo.switches[0].line, 3);
    EXPECT_EQ(topo.switches[1].line, 4);
    EXPECT_EQ(topo.switches[2].line, 5);
    EXPECT_EQ(topo.switches[1].nodes, (Names{"n2", "n3"}));
    EXPECT_EQ(topo.switches[2].switches, (Names{"s0", "s1"}));
    EXPECT_EQ(topo.leafOf("n3"), 1);
    EXPECT_EQ(topo.leafOf("n9"), -1);
    EXPECT_EQ(topo.parentOf(0), 2);
    EXPECT_EQ(topo.parentOf(2), -1);
    EXPECT_EQ(topo.parentOf(7), -1);
    EXPECT_EQ(topo.pathToTop("n2"), (std::vector<int>{1, 2}));
    EXPECT_TRUE(topo.pathToTop("nope").empty());
}

TEST(SlurmTopology, ParentMayBeDefinedBeforeChildren) {
    auto topo = parse(
        "SwitchName=top Switches=mid\n"
        "SwitchName=mid Switches=leaf\n"
        "SwitchName=leaf Nodes=a,b\n");
    EXPECT_EQ(topo.pathToTop("b"), (std::vector<int>{2, 1, 0}));
}

TEST(SlurmTopology, EmptyInputHasNoSwitches) {
    EXPECT_TRUE(parse("# nothing\n\n").switches.empty());
}

TEST(SlurmTopology, ErrorsNameFileAndLine) {
    EXPECT_EQ(parseError("SwitchName=s0 Nodes=n0\nSwitchName=s1 Nodez=n1\n"),
              "topo.conf:2: unknown key 'Nodez'");
    EXPECT_EQ(parseError("\nNodes=n[0-1]\n"), "topo.conf:2: missing SwitchName");
    EXPECT_TRUE(startsWith(parseError("SwitchName=s0 Nodes=n[0-1\n"), "topo.conf:1: unmatched '['"));
    EXPECT_TRUE(startsWith(parseError("SwitchName=s0 Nodes=n[3-1]\n"), "topo.conf:1: descending range"));
    EXPECT_TRUE(startsWith(parseError("SwitchName=s0 Nodes=n0\n#\nSwitchName=s0 Nodes=n1\n"),
                           "topo.conf:3: duplicate switch 's0'"));
    EXPECT_EQ(parseError("SwitchName=s0 Nodes=n0\nSwitchName=top Switches=s[0-1]\n"),
              "topo.conf:2: switch 's1' is never defined");
    EXPECT_EQ(parseError("SwitchName=s0 Nodes=n[0-3]\nSwitchName=s1 Nodes=n[3-4]\n"),
              "topo.conf:2: node 'n3' already attached to switch 's0'");
    EXPECT_TRUE(startsWith(parseError("SwitchName=s0 Nodes=n0,n0\n"), "topo.conf:1: node 'n0' listed twice"));
    EXPECT_TRUE(startsWith(parseError("SwitchName=s0 Nodes\n"), "topo.conf:1: expected KEY=VALUE"));
    EXPECT_TRUE(startsWith(parseError("SwitchName=a Switches=b\nSwitchName=c Switches=b\nSwitchName=b\n"),
                           "topo.conf:2: switch 'b' already a child of switch 'a'"));
}

TEST(SlurmTopology, CyclesAreRejected) {
    EXPECT_EQ(parseError("SwitchName=x Nodes=n0\nSwitchName=a Switches=b\nSwitchName=b Switches=a\n"),
              "topo.conf:2: switch cycle a -> b -> a");
    EXPECT_TRUE(startsWith(parseError("SwitchName=self Switches=self\n"), "topo.conf:1: switch cycle"));
    // A chain hanging off a cycle is reported through the cycle itself.
    EXPECT_TRUE(startsWith(parseError("SwitchName=leaf Nodes=n0\nSwitchName=p Switches=leaf,q\n"
                                      "SwitchName=q Switches=p\n"),
                           "topo.conf:2: switch cycle"));
}

TEST(SlurmTopology, LoadReportsMissingFile) {
    try {
        loadSlurmTopology("/nonexistent/dir/topology.conf");
        FAIL() << "expected TopologyParseError";
    } catch (const TopologyParseError& e) {
        EXPECT_EQ(std::string(e.what()), "/nonexistent/dir/topology.conf: cannot open (No such file or directory)");
    }
    EXPECT_THROW(loadSlurmTopology("/"), TopologyParseError);
}

TEST(SlurmTopology, LoadReadsFileAndUsesPathInErrors) {
    std::string path = testing::TempDir() + "hieragg_slurm_topo_" + std::to_string(getpid()) + ".conf";
    {
        std::ofstream out(path);
        out << "SwitchName=s0 Nodes=n[0-1]\nSwitchName=s1 Bogus=1\n";
    }
    try {
        loadSlurmTopology(path);
        FAIL() << "expected TopologyParseError";
    } catch (const TopologyParseError& e) {
        EXPECT_EQ(std::string(e.what()), path + ":2: unknown key 'Bogus'");
    }
    {
        std::ofstream out(path);
        out << "SwitchName=s0 Nodes=n[0-1]\n";
    }
    EXPECT_EQ(loadSlurmTopology(path).switches.at(0).nodes.size(), 2u);
    std::remove(path.c_str());
}

TEST(SlurmTopology, ShippedExampleParses) {
    auto topo = loadSlurmTopology(std::string(HIERAGG_TEST_DATA_DIR) + "/slurm_topology_two_level.conf");
    ASSERT_EQ(topo.switches.size(), 5u);
    for (int n = 0; n < 64; ++n) {
        auto path = topo.pathToTop("node" + std::string(n < 10 ? "0" : "") + std::to_string(n));
        ASSERT_EQ(path.size(), 2u) << n;
        EXPECT_EQ(path[0], n / 16);
        EXPECT_EQ(topo.switches[path[1]].name, "core");
    }
}
