#include <gtest/gtest.h>

#include "hieragg/hier/SplitSpec.hpp"

using hieragg::hier::parseSplitSpec;
using hieragg::hier::SplitLevel;
using hieragg::hier::SplitSpec;
using Kind = hieragg::hier::SplitLevel::Kind;
using hieragg::hier::kMaxSplitLevels;

namespace {

SplitSpec parseOk(const std::string& value) {
    SplitSpec spec;
    std::string error = "untouched";
    EXPECT_TRUE(parseSplitSpec(value, spec, error)) << value << ": " << error;
    EXPECT_TRUE(error.empty()) << error;
    return spec;
}

// Returns the error; checks that `out` was reset to the default "node".
std::string parseBad(const std::string& value) {
    SplitSpec spec;
    spec.levels = {SplitLevel{Kind::Virtual, 3, ""}, SplitLevel{Kind::Numa, 0, ""}};  // garbage to overwrite
    std::string error;
    EXPECT_FALSE(parseSplitSpec(value, spec, error)) << value;
    EXPECT_FALSE(error.empty()) << value;
    EXPECT_EQ(spec.text(), "node") << value;
    EXPECT_EQ(spec.levels.size(), 1u);
    EXPECT_EQ(spec.levels[0].kind, Kind::Node);
    return error;
}

}  // namespace

TEST(SplitSpec, SingleKinds) {
    EXPECT_EQ(parseOk("node").levels.at(0).kind, Kind::Node);
    EXPECT_EQ(parseOk("numa").levels.at(0).kind, Kind::Numa);
    SplitSpec v = parseOk("virtual:4");
    ASSERT_EQ(v.levels.size(), 1u);
    EXPECT_EQ(v.levels[0].kind, Kind::Virtual);
    EXPECT_EQ(v.levels[0].n, 4);
    SplitSpec rr = parseOk("roundrobin:3");
    EXPECT_EQ(rr.levels.at(0).kind, Kind::RoundRobin);
    EXPECT_EQ(rr.levels.at(0).n, 3);
    SplitSpec f = parseOk("file:/tmp/groups.txt");
    EXPECT_EQ(f.levels.at(0).kind, Kind::File);
    EXPECT_EQ(f.levels.at(0).path, "/tmp/groups.txt");
    SplitSpec t = parseOk("topology:/etc/slurm/topology.conf");
    EXPECT_EQ(t.levels.at(0).kind, Kind::Topology);
    EXPECT_EQ(t.levels.at(0).path, "/etc/slurm/topology.conf");
}

TEST(SplitSpec, LevelsInnerFirstAndRoundTrip) {
    SplitSpec s = parseOk("numa,node,topology:/t.conf");
    ASSERT_EQ(s.levels.size(), 3u);
    EXPECT_EQ(s.levels[0].kind, Kind::Numa);
    EXPECT_EQ(s.levels[1].kind, Kind::Node);
    EXPECT_EQ(s.levels[2].kind, Kind::Topology);
    EXPECT_EQ(s.text(), "numa,node,topology:/t.conf");
    for (const char* v : {"node", "numa,node", "virtual:2,virtual:4", "roundrobin:2,virtual:8",
                          "file:/a/b,node", "file:{0-3,8;4-7},node"})
        EXPECT_EQ(parseOk(v).text(), v);
}

TEST(SplitSpec, ToleratesSpacesAndCase) {
    EXPECT_EQ(parseOk(" numa , NODE ").text(), "numa,node");
    EXPECT_EQ(parseOk("Virtual: 4").text(), "virtual:4");
}

TEST(SplitSpec, InlineFileGroupsKeepTheirCommas) {
    SplitSpec s = parseOk("file:{0-3,8;4-7},node");
    ASSERT_EQ(s.levels.size(), 2u);
    EXPECT_EQ(s.levels[0].kind, Kind::File);
    EXPECT_EQ(s.levels[0].path, "{0-3,8;4-7}");
    EXPECT_EQ(s.levels[1].kind, Kind::Node);
}

TEST(SplitSpec, DistinctParametersAreNotDuplicates) {
    EXPECT_EQ(parseOk("virtual:2,virtual:4").levels.size(), 2u);
    EXPECT_EQ(parseOk("file:/a,file:/b").levels.size(), 2u);
}

TEST(SplitSpec, ErrorsNameTheProblem) {
    EXPECT_NE(parseBad("foo").find("unknown kind 'foo'"), std::string::npos);
    EXPECT_NE(parseBad("node,switch").find("unknown kind 'switch'"), std::string::npos);
    EXPECT_NE(parseBad("virtual:0").find(">= 1"), std::string::npos);
    EXPECT_NE(parseBad("roundrobin:0").find(">= 1"), std::string::npos);
    EXPECT_NE(parseBad("virtual").find("needs a group size"), std::string::npos);
    EXPECT_NE(parseBad("virtual:").find("needs a group size"), std::string::npos);
    EXPECT_NE(parseBad("roundrobin").find("needs a group size"), std::string::npos);
    EXPECT_NE(parseBad("virtual:abc").find("positive integer"), std::string::npos);
    EXPECT_NE(parseBad("virtual:-2").find("positive integer"), std::string::npos);
    EXPECT_NE(parseBad("virtual:+2").find("positive integer"), std::string::npos);
    EXPECT_NE(parseBad("virtual:4x").find("positive integer"), std::string::npos);
    EXPECT_NE(parseBad("virtual:4 4").find("positive integer"), std::string::npos);
    EXPECT_NE(parseBad("virtual:99999999999").find("too large"), std::string::npos);
    EXPECT_NE(parseBad("node:3").find("takes no argument"), std::string::npos);
    EXPECT_NE(parseBad("numa:").find("takes no argument"), std::string::npos);
    EXPECT_NE(parseBad("file").find("needs a path"), std::string::npos);
    EXPECT_NE(parseBad("file:").find("needs a path"), std::string::npos);
    EXPECT_NE(parseBad("topology:").find("needs a path"), std::string::npos);
    EXPECT_NE(parseBad("").find("empty"), std::string::npos);
    EXPECT_NE(parseBad("   ").find("empty"), std::string::npos);
    EXPECT_NE(parseBad("numa,,node").find("empty item"), std::string::npos);
    EXPECT_NE(parseBad("node,").find("empty item"), std::string::npos);
    EXPECT_NE(parseBad(",node").find("empty item"), std::string::npos);
    EXPECT_NE(parseBad("node,node").find("duplicate level 'node'"), std::string::npos);
    EXPECT_NE(parseBad("virtual:4,numa,virtual:4").find("duplicate level 'virtual:4'"), std::string::npos);
    EXPECT_NE(parseBad("file:{0-3;4-7").find("unbalanced"), std::string::npos);
    EXPECT_NE(parseBad("file:0-3}").find("unbalanced"), std::string::npos);
    EXPECT_NE(parseBad("file:{0-3}x").find("junk"), std::string::npos);
    EXPECT_NE(parseBad("topology:{0-3}").find("only for file"), std::string::npos);
}

// Deeper nesting than kMaxSplitLevels is refused (the caller warns and uses node).
TEST(SplitSpec, NestingIsCapped) {
    std::string value;
    for (size_t i = 1; i <= kMaxSplitLevels; ++i) value += (i > 1 ? ",virtual:" : "virtual:") + std::to_string(i);
    SplitSpec spec;
    std::string error;
    EXPECT_TRUE(parseSplitSpec(value, spec, error)) << error;
    EXPECT_EQ(spec.levels.size(), kMaxSplitLevels);
    value += ",virtual:" + std::to_string(kMaxSplitLevels + 1);
    EXPECT_FALSE(parseSplitSpec(value, spec, error));
    EXPECT_NE(error.find("at most " + std::to_string(kMaxSplitLevels)), std::string::npos) << error;
    EXPECT_EQ(spec.text(), "node");
}
