// The rules file (SPEC 3.4; coll_hieragg_rules_file=PATH, written by hieragg-tune):
// per collective, candidate protocols in order (a registry algorithm plus its
// tunables k and segment), each with a fitted performance function, the range
// of message sizes / process counts / subspace counts the fits are valid for,
// and a threshold; or an array of such rule sets, one per layout (the first whose
// ranges hold the communicator applies). Schema (version 1) in docs/tuning.md. No MPI.
//
// A candidate's metric is its relative speed at a message size: the fastest
// fitted time of all candidates there divided by its own fitted time (1 = the
// fastest). Selection takes the first candidate, in file order, whose metric
// reaches the collective's threshold; threshold 1 always takes the fastest, a
// lower one prefers earlier candidates that are nearly as fast.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/PerformanceFunction.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::hier {

constexpr int kRulesSchemaVersion = 1;
constexpr const char* kRulesSchemaName = "hieragg-rules";

struct RuleCandidate {
    const AlgorithmInfo* algo = nullptr;
    int k = 0;           // radix (0: the model's)
    size_t segment = 0;  // pipeline segment / pulse bytes (0: the model's / coll_hieragg_segment_size)
    PerformanceFunction fit;
    std::string label() const;  // "knomial k=4 seg=16384"
};

struct ValidRange {
    double lo = 0, hi = 0;
    bool contains(double v) const { return v >= lo && v <= hi; }
};

struct CollectiveRules {
    hieragg_coll_kind coll = HIERAGG_BCAST;
    double threshold = 1.0;  // relative speed a candidate must reach, (0, 1]
    ValidRange bytes, ranks, subspaces;
    std::vector<RuleCandidate> candidates;
};

struct RulesFile {
    std::string path;
    std::vector<CollectiveRules> collectives;  // a collective may have several sets (layouts), in file order
};

// Parses a rules file's text. On any problem returns false and says what (never throws
// for bad input): malformed JSON, other schema or version, unknown collective or
// algorithm, a degree outside 1..4, coefficients that do not match the degree, a bad
// threshold, tunable or range.
bool parseRules(const std::string& text, RulesFile& out, std::string& problem);
// Reads and parses `path` (problem: "cannot be read" too).
bool loadRulesFile(const std::string& path, RulesFile& out, std::string& problem);

// The determinations of one communicator (SPEC 3.4: evaluated once at setup): per
// collective and message size class (hier::sizeClass), the candidates whose metric
// reaches the threshold at the class's geometric middle size, in file order.
class Determinations {
public:
    // Evaluates every collective's rules for a communicator of `ranks` ranks and
    // `subspaces` level-0 subspaces (1 when it is not decomposed). Collectives whose
    // ranks/subspaces range excludes the communicator get no determinations; each is
    // described in *outOfRange (if given).
    Determinations(std::shared_ptr<const RulesFile> rules, int ranks, int subspaces,
                   std::vector<std::string>* outOfRange = nullptr);

    // The rule for one call: the first determined candidate of its size class whose
    // needs the call satisfies; nullptr when the size lies outside the validity range,
    // the collective has no rules, or no candidate fits (the cost model decides). Does
    // not evaluate any fitted function.
    const RuleCandidate* ruleFor(const CollCall& call) const;
    const RulesFile& rules() const { return *rules_; }

private:
    static constexpr int kClasses = 64;
    struct PerColl {
        const CollectiveRules* rules = nullptr;
        std::array<std::vector<int>, kClasses> winners;
    };
    std::shared_ptr<const RulesFile> rules_;
    std::vector<PerColl> byColl_;
};

// Puts a rule into a call before planning: its algorithm as the override, its segment
// as the pulse / segment size.
void applyRule(CollCall& call, const RuleCandidate& rule);
// After planning: the rule's k and segment on every stage its algorithm serves (the
// model filled the rest); `source` ("rules file PATH") leads each such stage's why.
void applyRuleTunables(Plan& plan, const RuleCandidate& rule, const std::string& source);

}  // namespace hieragg::hier
