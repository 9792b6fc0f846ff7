#include "hieragg/hier/RulesFile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "hieragg/hier/Selection.hpp"

namespace hieragg::hier {

namespace {

using nlohmann::json;

// Thrown while parsing; becomes the one warning.
struct Bad {
    std::string what;
};

hieragg_coll_kind collByName(const std::string& name) {
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k)
        if (name == collectiveName(static_cast<hieragg_coll_kind>(k))) return static_cast<hieragg_coll_kind>(k);
    throw Bad{"unknown collective \"" + name + "\""};
}

double finite(const json& v, const std::string& where) {
    if (!v.is_number()) throw Bad{where + " must be a number"};
    const double d = v.get<double>();
    if (!std::isfinite(d)) throw Bad{where + " is not finite"};
    return d;
}

std::vector<double> numbers(const json& v, const std::string& where) {
    if (!v.is_array()) throw Bad{where + " must be an array of numbers"};
    std::vector<double> out;
    for (size_t i = 0; i < v.size(); ++i) out.push_back(finite(v[i], where + "[" + std::to_string(i) + "]"));
    return out;
}

ValidRange range(const json& valid, const char* key, double dflo, double dfhi, const std::string& where) {
    if (!valid.contains(key)) return {dflo, dfhi};
    const std::vector<double> r = numbers(valid[key], where + "." + key);
    if (r.size() != 2 || r[0] < 0 || r[0] > r[1]) throw Bad{where + "." + key + " must be [min, max] with 0 <= min <= max"};
    return {r[0], r[1]};
}

PerformanceFunction function(const json& f, const std::string& where) {
    if (!f.is_object()) throw Bad{where + " must be an object"};
    PerformanceFunction p;
    if (!f.contains("degree") || !f["degree"].is_number_integer()) throw Bad{where + ".degree must be an integer"};
    p.degree = f["degree"].get<int>();
    if (p.degree < 1 || p.degree > 4) throw Bad{where + ".degree is " + std::to_string(p.degree) + " (1..4 allowed)"};
    if (f.contains("log_space")) {
        if (!f["log_space"].is_boolean()) throw Bad{where + ".log_space must be true or false"};
        p.logSpace = f["log_space"].get<bool>();
    }
    if (!f.contains("coeffs")) throw Bad{where + ".coeffs is missing"};
    p.coeffs = numbers(f["coeffs"], where + ".coeffs");
    if (static_cast<int>(p.coeffs.size()) != p.degree + 1)
        throw Bad{where + ".coeffs has " + std::to_string(p.coeffs.size()) + " entries, degree " +
                  std::to_string(p.degree) + " needs " + std::to_string(p.degree + 1)};
    if (f.contains("ranks_coeffs")) p.rankCoeffs = numbers(f["ranks_coeffs"], where + ".ranks_coeffs");
    if (f.contains("subspaces_coeffs")) p.subspaceCoeffs = numbers(f["subspaces_coeffs"], where + ".subspaces_coeffs");
    if (p.rankCoeffs.size() > 4 || p.subspaceCoeffs.size() > 4) throw Bad{where + ": at most 4 terms in ranks / subspaces"};
    return p;
}

void parse(const json& doc, RulesFile& out) {
    if (!doc.is_object()) throw Bad{"the top level is not a JSON object"};
    if (!doc.contains("schema") || doc["schema"] != kRulesSchemaName)
        throw Bad{std::string("not a hieragg rules file (\"schema\" must be \"") + kRulesSchemaName + "\")"};
    if (!doc.contains("version") || !doc["version"].is_number_integer())
        throw Bad{"\"version\" is missing"};
    if (doc["version"].get<int>() != kRulesSchemaVersion)
        throw Bad{"schema version " + std::to_string(doc["version"].get<int>()) + ", this component reads version " +
                  std::to_string(kRulesSchemaVersion)};
    if (!doc.contains("collectives") || !doc["collectives"].is_object() || doc["collectives"].empty())
        throw Bad{"\"collectives\" is missing or empty"};
    for (auto it = doc["collectives"].begin(); it != doc["collectives"].end(); ++it) {
        const hieragg_coll_kind coll = collByName(it.key());
        // One rule set, or an array of them for different layouts (their ranges pick one).
        const json sets = it.value().is_array() ? it.value() : json::array({it.value()});
        if (sets.empty()) throw Bad{it.key() + " has no rules"};
        for (size_t si = 0; si < sets.size(); ++si) {
            const std::string where = it.value().is_array() ? it.key() + "[" + std::to_string(si) + "]" : it.key();
            const json& c = sets[si];
            CollectiveRules r;
            r.coll = coll;
            if (!c.is_object()) throw Bad{where + " must be an object"};
            if (c.contains("metric") && c["metric"] != "relative_speed")
                throw Bad{where + ".metric must be \"relative_speed\""};
            if (!c.contains("threshold")) throw Bad{where + ".threshold is missing"};
            r.threshold = finite(c["threshold"], where + ".threshold");
            if (!(r.threshold > 0 && r.threshold <= 1)) throw Bad{where + ".threshold must lie in (0, 1]"};
            const json valid = c.contains("valid") ? c["valid"] : json::object();
            if (!valid.is_object()) throw Bad{where + ".valid must be an object"};
            r.bytes = range(valid, "bytes", 0, 1e300, where + ".valid");
            r.ranks = range(valid, "ranks", 1, 1e300, where + ".valid");
            r.subspaces = range(valid, "subspaces", 1, 1e300, where + ".valid");
            if (!c.contains("candidates") || !c["candidates"].is_array() || c["candidates"].empty())
                throw Bad{where + ".candidates is missing or empty"};
            if (c["candidates"].size() > 64) throw Bad{where + ": more than 64 candidates"};
            for (size_t i = 0; i < c["candidates"].size(); ++i) {
                const json& j = c["candidates"][i];
                const std::string w = where + ".candidates[" + std::to_string(i) + "]";
                if (!j.is_object() || !j.contains("algorithm") || !j["algorithm"].is_string())
                    throw Bad{w + ".algorithm is missing"};
                RuleCandidate cand;
                cand.algo = algorithmByName(r.coll, j["algorithm"].get<std::string>());
                if (!cand.algo)
                    throw Bad{w + ": " + where + " has no algorithm \"" + j["algorithm"].get<std::string>() +
                              "\" (known: " + std::string(algorithmNames(r.coll)).substr(5) + ")"};
                if (j.contains("k")) {
                    if (!j["k"].is_number_integer() || j["k"].get<long long>() < 2 || j["k"].get<long long>() > 64)
                        throw Bad{w + ".k must be an integer in 2..64"};
                    if (!(cand.algo->tunes & kTunesRadix)) throw Bad{w + ": " + cand.algo->name + " has no radix k"};
                    cand.k = j["k"].get<int>();
                }
                if (j.contains("segment")) {
                    if (!j["segment"].is_number_integer() || j["segment"].get<long long>() < 0 ||
                        (j["segment"].get<long long>() > 0 && j["segment"].get<long long>() < 64) ||
                        j["segment"].get<long long>() > (1ll << 40))
                        throw Bad{w + ".segment must be 0 or an integer number of bytes >= 64"};
                    if (j["segment"].get<long long>() > 0 && !(cand.algo->tunes & kTunesSegment))
                        throw Bad{w + ": " + cand.algo->name + " has no segment"};
                    cand.segment = j["segment"].get<size_t>();
                }
                if (!j.contains("fit")) throw Bad{w + ".fit is missing"};
                cand.fit = function(j["fit"], w + ".fit");
                r.candidates.push_back(cand);
            }
            out.collectives.push_back(std::move(r));
        }
    }
}

std::string rangeText(const ValidRange& r) {
    char buf[80];
    if (r.hi >= 1e300)
        std::snprintf(buf, sizeof buf, "%g..any", r.lo);
    else
        std::snprintf(buf, sizeof buf, "%g..%g", r.lo, r.hi);
    return buf;
}

}  // namespace

std::string RuleCandidate::label() const {
    std::string s = algo ? algo->name : "?";
    if (k) s += " k=" + std::to_string(k);
    if (segment) s += " seg=" + std::to_string(segment);
    return s;
}

bool parseRules(const std::string& text, RulesFile& out, std::string& problem) {
    out.collectives.clear();
    try {
        parse(json::parse(text), out);
        return true;
    } catch (const json::exception& e) {
        problem = std::string("malformed JSON (") + e.what() + ")";
    } catch (const Bad& b) {
        problem = b.what;
    }
    out.collectives.clear();
    return false;
}

bool loadRulesFile(const std::string& path, RulesFile& out, std::string& problem) {
    out.path = path;
    std::ifstream in(path);
    if (!in) {
        problem = "cannot be read";
        out.collectives.clear();
        return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parseRules(text.str(), out, problem);
}

Determinations::Determinations(std::shared_ptr<const RulesFile> rules, int ranks, int subspaces,
                               std::vector<std::string>* outOfRange)
    : rules_(std::move(rules)), byColl_(HIERAGG_COLL_KIND_COUNT) {
    std::vector<std::string> missed(HIERAGG_COLL_KIND_COUNT);  // ranges of the sets that do not hold
    for (const CollectiveRules& r : rules_->collectives) {
        if (byColl_[r.coll].rules) continue;  // an earlier set of this collective holds
        if (!r.ranks.contains(ranks) || !r.subspaces.contains(subspaces)) {
            missed[r.coll] += (missed[r.coll].empty() ? "" : ", ") + rangeText(r.ranks) + " ranks in " +
                              rangeText(r.subspaces) + " subspaces";
            continue;
        }
        missed[r.coll].clear();
        PerColl& pc = byColl_[r.coll];
        pc.rules = &r;
        for (int cls = 0; cls < kClasses; ++cls) {
            // The class holds [2^cls, 2^(cls+1)); it is judged at its geometric middle.
            const double bytes = cls == 0 ? 1.0 : std::ldexp(std::sqrt(2.0), cls);
            std::vector<double> t;
            double fastest = HUGE_VAL;
            for (const RuleCandidate& c : r.candidates) {
                t.push_back(c.fit.timeUs(bytes, ranks, subspaces));
                fastest = std::min(fastest, t.back());
            }
            for (size_t i = 0; i < t.size(); ++i) {
                const double speed = t[i] > 0 ? fastest / t[i] : 1.0;
                if (std::isfinite(t[i]) && speed >= r.threshold * (1 - 1e-12)) pc.winners[cls].push_back(static_cast<int>(i));
            }
        }
    }
    // Said without this communicator's numbers: one warning however many communicators miss.
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT && outOfRange; ++k)
        if (!byColl_[k].rules && !missed[k].empty())
            outOfRange->push_back(std::string(collectiveName(static_cast<hieragg_coll_kind>(k))) + " rules hold for " +
                                  missed[k] + " only");
}

const RuleCandidate* Determinations::ruleFor(const CollCall& call) const {
    if (call.args.kind < 0 || call.args.kind >= HIERAGG_COLL_KIND_COUNT) return nullptr;
    const PerColl& pc = byColl_[call.args.kind];
    if (!pc.rules) return nullptr;
    const size_t bytes = modelBytes(call);
    if (!pc.rules->bytes.contains(static_cast<double>(bytes))) return nullptr;
    const int cls = std::min(sizeClass(bytes), kClasses - 1);
    for (int i : pc.winners[cls]) {
        const RuleCandidate& c = pc.rules->candidates[i];
        if (unmetNeed(*c.algo, call).empty()) return &c;
    }
    return nullptr;
}

void applyRule(CollCall& call, const RuleCandidate& rule) {
    call.algorithm = algorithmValue(*rule.algo);
    if (rule.segment) call.segmentBytes = rule.segment;
}

void applyRuleTunables(Plan& plan, const RuleCandidate& rule, const std::string& source) {
    // A forced "flat" row runs its tree over the whole communicator: that stage is its.
    const bool flatRule = rule.algo->pricing == Pricing::FlatMarker && plan.mode == Plan::Mode::Flat;
    for (StageChoice& s : plan.stages) {
        if (s.algo != rule.algo && !flatRule) continue;
        const bool radix = s.shape.kind == TreeShape::Kind::Knomial || s.shape.kind == TreeShape::Kind::Kary;
        if (rule.k && radix) s.shape.k = rule.k;
        if (rule.segment) s.segmentBytes = rule.segment;
        s.why = source + ": " + rule.label() + "; model: " + s.why;
    }
}

}  // namespace hieragg::hier
