// Rules files (RulesFile.hpp): selection from synthetic rules, validity ranges,
// needs, tunables, and one clear problem for every kind of bad file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "hieragg/hier/Decomposition.hpp"
#include "hieragg/hier/RulesFile.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::hier;

namespace {

// Two bcast candidates with known lines: knomial t = 10 + 1e-3 m, chain t = 50 + 2e-4 m.
// They cross at m* = 40 / 8e-4 = 50000 bytes (closed form, not from the code).
std::string twoLines(double threshold, const std::string& first = "knomial", const std::string& valid = "") {
    const std::string kn = R"({"algorithm": "knomial", "k": 4, "fit": {"degree": 1, "coeffs": [10, 0.001]}})";
    const std::string ch = R"({"algorithm": "chain", "segment": 8192, "fit": {"degree": 1, "coeffs": [50, 0.0002]}})";
    return std::string(R"({"schema": "hieragg-rules", "version": 1, "collectives": {"bcast": {"metric": "relative_speed", "threshold": )") +
           std::to_string(threshold) + (valid.empty() ? "" : ", \"valid\": " + valid) + R"(, "candidates": [)" +
           (first == "knomial" ? kn + "," + ch : ch + "," + kn) + "]}}}";
}

std::shared_ptr<const RulesFile> parsed(const std::string& text) {
    auto r = std::make_shared<RulesFile>();
    std::string problem;
    EXPECT_TRUE(parseRules(text, *r, problem)) << problem;
    return r;
}

CollCall bcastOf(size_t bytes, int size = 8) {
    CollCall c;
    c.args.kind = HIERAGG_BCAST;
    c.args.rcount = bytes;
    c.rtype.size = 1;
    c.size = size;
    return c;
}

std::string problemOf(const std::string& text) {
    RulesFile r;
    std::string problem;
    EXPECT_FALSE(parseRules(text, r, problem)) << text;
    EXPECT_TRUE(r.collectives.empty());
    return problem;
}

}  // namespace

TEST(RulesFile, ThresholdOneTakesTheFastestOnEachSideOfTheCrossover) {
    Determinations d(parsed(twoLines(1.0)), 8, 2);
    // Sizes well inside their size classes on either side of m* = 50000.
    for (size_t m : {1u, 100u, 3000u, 20000u}) {
        const RuleCandidate* r = d.ruleFor(bcastOf(m));
        ASSERT_NE(r, nullptr) << m;
        EXPECT_STREQ(r->algo->name, "knomial") << m;
        EXPECT_EQ(r->k, 4);
    }
    for (size_t m : {200000u, 1u << 22}) {
        const RuleCandidate* r = d.ruleFor(bcastOf(m));
        ASSERT_NE(r, nullptr) << m;
        EXPECT_STREQ(r->algo->name, "chain") << m;
        EXPECT_EQ(r->segment, 8192u);
    }
}

TEST(RulesFile, LowerThresholdPrefersEarlierCandidatesThatAreNearlyAsFast) {
    // Chain listed first, threshold 0.5: chain wins while its time <= 2x knomial's:
    // 50 + 2e-4 m <= 2 (10 + 1e-3 m)  <=>  m >= 30 / 1.8e-3 = 16667 bytes.
    Determinations d(parsed(twoLines(0.5, "chain")), 8, 2);
    EXPECT_STREQ(d.ruleFor(bcastOf(4000))->algo->name, "knomial");
    EXPECT_STREQ(d.ruleFor(bcastOf(40000))->algo->name, "chain");
    EXPECT_STREQ(d.ruleFor(bcastOf(1u << 20))->algo->name, "chain");
}

TEST(RulesFile, OutsideTheValidityRangeTheModelDecides) {
    std::vector<std::string> out;
    Determinations d(parsed(twoLines(1.0, "knomial", R"({"bytes": [64, 65536], "ranks": [4, 16], "subspaces": [2, 4]})")),
                     8, 2, &out);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(d.ruleFor(bcastOf(8)), nullptr);        // below the byte range
    EXPECT_NE(d.ruleFor(bcastOf(1024)), nullptr);
    EXPECT_EQ(d.ruleFor(bcastOf(1u << 20)), nullptr);  // above it
    CollCall reduce = bcastOf(1024);
    reduce.args.kind = HIERAGG_REDUCE;                  // no rules for reduce
    EXPECT_EQ(d.ruleFor(reduce), nullptr);

    Determinations tooMany(parsed(twoLines(1.0, "knomial", R"({"ranks": [4, 16]})")), 32, 2, &out);
    EXPECT_EQ(tooMany.ruleFor(bcastOf(1024, 32)), nullptr);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NE(out[0].find("bcast"), std::string::npos) << out[0];
    EXPECT_NE(out[0].find("4..16 ranks in 1..any subspaces"), std::string::npos) << out[0];
    out.clear();
    Determinations oneNode(parsed(twoLines(1.0, "knomial", R"({"subspaces": [2, 8]})")), 8, 1, &out);
    EXPECT_EQ(oneNode.ruleFor(bcastOf(1024)), nullptr);
    EXPECT_EQ(out.size(), 1u);
}

TEST(RulesFile, ProcessAndSubspaceTermsMoveTheCrossover) {
    // knomial gains 5 us per subspace: t = 10 + 1e-3 m + 5 s; crossing chain at
    // m* = (40 - 5 s) / 8e-4: 37500 bytes for s = 2, 0 for s = 8 (chain always).
    const std::string text = R"({"schema": "hieragg-rules", "version": 1, "collectives": {"bcast": {"threshold": 1,
        "candidates": [{"algorithm": "knomial", "fit": {"degree": 1, "coeffs": [10, 0.001], "subspaces_coeffs": [5]}},
                       {"algorithm": "chain", "fit": {"degree": 1, "coeffs": [50, 0.0002]}}]}}})";
    Determinations two(parsed(text), 8, 2), eight(parsed(text), 64, 8);
    EXPECT_STREQ(two.ruleFor(bcastOf(20000))->algo->name, "knomial");
    EXPECT_STREQ(two.ruleFor(bcastOf(100000))->algo->name, "chain");
    EXPECT_STREQ(eight.ruleFor(bcastOf(20000, 64))->algo->name, "chain");
}

TEST(RulesFile, OneSetPerLayoutTheRangesPickOne) {
    // hieragg-tune with several layouts: one rule set per layout, told apart by their ranges.
    const std::string text = R"({"schema": "hieragg-rules", "version": 1, "collectives": {"bcast": [
        {"threshold": 1, "valid": {"ranks": [8, 8], "subspaces": [2, 2]},
         "candidates": [{"algorithm": "knomial", "fit": {"degree": 1, "coeffs": [1, 0]}}]},
        {"threshold": 1, "valid": {"ranks": [8, 8], "subspaces": [4, 4]},
         "candidates": [{"algorithm": "chain", "fit": {"degree": 1, "coeffs": [1, 0]}}]}]}})";
    std::vector<std::string> out;
    Determinations two(parsed(text), 8, 2, &out), four(parsed(text), 8, 4, &out);
    EXPECT_TRUE(out.empty());
    EXPECT_STREQ(two.ruleFor(bcastOf(4096))->algo->name, "knomial");
    EXPECT_STREQ(four.ruleFor(bcastOf(4096))->algo->name, "chain");
    Determinations three(parsed(text), 8, 3, &out);
    EXPECT_EQ(three.ruleFor(bcastOf(4096)), nullptr);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NE(out[0].find("8..8 ranks in 2..2 subspaces, 8..8 ranks in 4..4 subspaces only"), std::string::npos)
        << out[0];
}

TEST(RulesFile, CandidatesWhoseNeedsFailAreSkippedPerCall) {
    // kary needs a commutative op; the next candidate serves non-commutative calls.
    const std::string text = R"({"schema": "hieragg-rules", "version": 1, "collectives": {"allreduce": {"threshold": 0.01,
        "candidates": [{"algorithm": "kary", "k": 3, "fit": {"degree": 1, "coeffs": [1, 0.001]}},
                       {"algorithm": "chain", "fit": {"degree": 1, "coeffs": [2, 0.001]}}]}}})";
    Determinations d(parsed(text), 8, 2);
    CollCall c = bcastOf(4096);
    c.args.kind = HIERAGG_ALLREDUCE;
    c.args.op_commutative = 1;
    EXPECT_STREQ(d.ruleFor(c)->algo->name, "kary");
    c.args.op_commutative = 0;
    EXPECT_STREQ(d.ruleFor(c)->algo->name, "chain");
}

TEST(RulesFile, RuleBecomesTheOverrideAndItsTunablesReachThePlan) {
    std::vector<RankIdentity> ids(8);
    for (int r = 0; r < 8; ++r) ids[r].worldRank = r, ids[r].hostname = "h";
    DecompositionResult dec = decomposeValue("virtual:4", ids);
    ASSERT_TRUE(dec.warning.empty());
    Determinations d(parsed(twoLines(1.0)), 8, 2);
    CollCall c = bcastOf(1024);
    c.hierarchy = &dec.hierarchy;
    const RuleCandidate* r = d.ruleFor(c);
    ASSERT_NE(r, nullptr);
    applyRule(c, *r);
    EXPECT_EQ(c.algorithm, algorithmValue(*algorithmByName(HIERAGG_BCAST, "knomial")));
    Plan p = choosePlan(c, CostParams::defaults());
    applyRuleTunables(p, *r, "rules file");
    ASSERT_EQ(p.mode, Plan::Mode::Levels);
    for (const StageChoice& s : p.stages) {
        EXPECT_STREQ(s.algo->name, "knomial");
        EXPECT_EQ(s.shape.k, 4);
        EXPECT_EQ(s.why.rfind("rules file: knomial k=4", 0), 0u) << s.why;
    }
    CollCall big = bcastOf(1u << 21);
    big.hierarchy = &dec.hierarchy;
    const RuleCandidate* rc = d.ruleFor(big);
    applyRule(big, *rc);
    EXPECT_EQ(big.segmentBytes, 8192u);
    Plan pc = choosePlan(big, CostParams::defaults());
    applyRuleTunables(pc, *rc, "rules file");
    for (const StageChoice& s : pc.stages) {
        EXPECT_STREQ(s.algo->name, "chain");
        EXPECT_EQ(s.segmentBytes, 8192u);
    }
}

TEST(RulesFile, LoadsFromAFileAndNamesAMissingOne) {
    const std::string path = ::testing::TempDir() + "hieragg_rules_test.json";
    { std::ofstream(path) << twoLines(1.0); }
    RulesFile r;
    std::string problem;
    EXPECT_TRUE(loadRulesFile(path, r, problem)) << problem;
    EXPECT_EQ(r.path, path);
    ASSERT_EQ(r.collectives.size(), 1u);
    EXPECT_EQ(r.collectives[0].candidates.size(), 2u);
    std::remove(path.c_str());
    EXPECT_FALSE(loadRulesFile(path, r, problem));
    EXPECT_EQ(problem, "cannot be read");
}

TEST(RulesFile, EveryBadFileSaysWhatIsWrong) {
    auto coll = [](const std::string& body) {
        return R"({"schema": "hieragg-rules", "version": 1, "collectives": {)" + body + "}}";
    };
    auto bcast = [&](const std::string& cand, const std::string& extra = "\"threshold\": 1") {
        return coll(R"("bcast": {)" + extra + R"(, "candidates": [)" + cand + "]}");
    };
    const std::string fit = R"("fit": {"degree": 1, "coeffs": [1, 2]})";
    struct Case {
        std::string text, expect;
    } cases[] = {
        {"{\"schema\": \"hieragg-rules\", ", "malformed JSON"},
        {"[1, 2]", "not a JSON object"},
        {R"({"schema": "other", "version": 1, "collectives": {}})", "not a hieragg rules file"},
        {R"({"schema": "hieragg-rules", "collectives": {}})", "\"version\" is missing"},
        {R"({"schema": "hieragg-rules", "version": 2, "collectives": {"bcast": {}}})", "schema version 2"},
        {R"({"schema": "hieragg-rules", "version": 1, "collectives": {}})", "\"collectives\" is missing or empty"},
        {coll(R"("broadcast": {})"), "unknown collective \"broadcast\""},
        {bcast(R"({"algorithm": "ring", )" + fit + "}"), "bcast has no algorithm \"ring\""},
        {bcast(R"({)" + fit + "}"), "algorithm is missing"},
        {bcast(R"({"algorithm": "knomial"})"), "fit is missing"},
        {bcast(R"({"algorithm": "knomial", "fit": {"degree": 5, "coeffs": [1, 2, 3, 4, 5, 6]}})"), "degree is 5"},
        {bcast(R"({"algorithm": "knomial", "fit": {"degree": 0, "coeffs": [1]}})"), "degree is 0"},
        {bcast(R"({"algorithm": "knomial", "fit": {"degree": 2, "coeffs": [1, 2]}})"), "coeffs has 2 entries"},
        {bcast(R"({"algorithm": "knomial", "fit": {"degree": 1, "coeffs": [1, "x"]}})"), "coeffs[1] must be a number"},
        {bcast(R"({"algorithm": "knomial", "fit": {"degree": 1, "coeffs": [1, 2], "log_space": 1}})"), "log_space"},
        {bcast(R"({"algorithm": "knomial", "k": 1, )" + fit + "}"), "k must be an integer in 2..64"},
        {bcast(R"({"algorithm": "chain", "k": 4, )" + fit + "}"), "chain has no radix k"},
        {bcast(R"({"algorithm": "chain", "segment": 10, )" + fit + "}"), "segment must be 0 or"},
        {coll(R"("barrier": {"threshold": 1, "candidates": [{"algorithm": "dissemination", "segment": 4096, )" + fit + "}]}"),
         "dissemination has no segment"},
        {bcast(R"({"algorithm": "knomial", )" + fit + "}", "\"threshold\": 0"), "threshold must lie in (0, 1]"},
        {bcast(R"({"algorithm": "knomial", )" + fit + "}", "\"threshold\": 1.5"), "threshold must lie in (0, 1]"},
        {bcast(R"({"algorithm": "knomial", )" + fit + "}", "\"valid\": {}"), "threshold is missing"},
        {bcast(R"({"algorithm": "knomial", )" + fit + "}", "\"threshold\": 1, \"metric\": \"bandwidth\""),
         "metric must be \"relative_speed\""},
        {bcast(R"({"algorithm": "knomial", )" + fit + "}", "\"threshold\": 1, \"valid\": {\"bytes\": [100, 10]}"),
         "valid.bytes must be [min, max]"},
        {bcast(R"({"algorithm": "knomial", )" + fit + "}", "\"threshold\": 1, \"valid\": {\"ranks\": [-1, 10]}"),
         "valid.ranks must be [min, max]"},
        {coll(R"("bcast": {"threshold": 1, "candidates": []})"), "candidates is missing or empty"},
        {coll(R"("bcast": [])"), "bcast has no rules"},
        {coll(R"("bcast": [{"threshold": 1, "candidates": [{"algorithm": "knomial", )" + fit + R"(}]}, 7])"),
         "bcast[1] must be an object"},
    };
    for (const Case& c : cases) {
        const std::string problem = problemOf(c.text);
        EXPECT_NE(problem.find(c.expect), std::string::npos) << "file: " << c.text << "\nproblem: " << problem;
    }
}
