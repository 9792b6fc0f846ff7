// hieragg-tune-fit: the non-MPI half of hieragg-tune (bench/tune/hieragg-tune).
//   protocols COLL[,COLL...]          list the protocols measured, one per line
//   force INDEX COLLS OUT.json         a rules file forcing protocol INDEX of each collective
//                                      that has one (prints those collectives, comma-separated)
//   fit DATA.csv OUT.json [THRESHOLD]  fit every protocol's times (PolynomialFit), write the
//                                      rules file (one rule set per collective and layout, told
//                                      apart by their ranks/subspaces ranges), print the fits
//                                      and the crossover sizes
// DATA.csv lines (from hieragg-tune-bench): coll,index,ranks,subspaces,bytes,us,mbps,served
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "TuneProtocols.hpp"
#include "hieragg/hier/PolynomialFit.hpp"
#include "hieragg/hier/RulesFile.hpp"

using namespace hieragg;
using nlohmann::json;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep))
        if (!item.empty()) out.push_back(item);
    return out;
}

json candidateJson(const tune::Protocol& p, const hier::PerformanceFunction& f) {
    json c;
    c["algorithm"] = p.algo->name;
    if (p.k) c["k"] = p.k;
    if (p.segment) c["segment"] = p.segment;
    c["fit"] = {{"degree", f.degree}, {"log_space", f.logSpace}, {"coeffs", f.coeffs}};
    return c;
}

json emptyRules() {
    return {{"schema", hier::kRulesSchemaName}, {"version", hier::kRulesSchemaVersion}, {"collectives", json::object()}};
}

bool writeChecked(const json& doc, const std::string& path) {
    // What we write must be what the component reads.
    hier::RulesFile check;
    std::string problem;
    if (!hier::parseRules(doc.dump(), check, problem)) {
        std::cerr << "hieragg-tune-fit: internal error, the rules do not parse: " << problem << "\n";
        return false;
    }
    std::ofstream out(path);
    out << doc.dump(2) << "\n";
    return static_cast<bool>(out);
}

std::string human(double bytes) {
    char buf[32];
    if (bytes >= 1 << 20)
        std::snprintf(buf, sizeof buf, "%.3g MiB", bytes / (1 << 20));
    else if (bytes >= 1024)
        std::snprintf(buf, sizeof buf, "%.3g KiB", bytes / 1024);
    else
        std::snprintf(buf, sizeof buf, "%.0f B", bytes);
    return buf;
}

int protocols(const std::string& colls) {
    for (const std::string& name : split(colls, ',')) {
        hieragg_coll_kind k;
        if (!tune::collectiveByName(name, k)) {
            std::cerr << "hieragg-tune-fit: unknown collective " << name << "\n";
            return 2;
        }
        const auto ps = tune::protocolsOf(k);
        for (size_t i = 0; i < ps.size(); ++i) std::cout << name << " " << i << " " << ps[i].label() << "\n";
    }
    return 0;
}

int force(int index, const std::string& colls, const std::string& path) {
    json doc = emptyRules();
    std::string included;
    for (const std::string& name : split(colls, ',')) {
        hieragg_coll_kind k;
        if (!tune::collectiveByName(name, k)) return 2;
        const auto ps = tune::protocolsOf(k);
        if (index < 0 || index >= static_cast<int>(ps.size())) continue;
        hier::PerformanceFunction one;
        one.coeffs = {1, 0};
        doc["collectives"][name] = {{"metric", "relative_speed"},
                                    {"threshold", 1.0},
                                    {"candidates", json::array({candidateJson(ps[index], one)})}};
        included += (included.empty() ? "" : ",") + name;
    }
    if (included.empty()) return 0;
    if (!writeChecked(doc, path)) return 1;
    std::cout << included << "\n";
    return 0;
}

struct Series {
    std::vector<double> bytes, us, mbps;
    int ranks = 0, subspaces = 0;
};

int fit(const std::string& csv, const std::string& path, double threshold) {
    std::ifstream in(csv);
    if (!in) {
        std::cerr << "hieragg-tune-fit: cannot read " << csv << "\n";
        return 1;
    }
    // coll -> layout (ranks, subspaces) -> protocol index -> points
    std::map<std::string, std::map<std::pair<int, int>, std::map<int, Series>>> data;
    std::string line;
    while (std::getline(in, line)) {
        const auto f = split(line, ',');
        if (f.size() != 8 || f[0] == "coll" || f[7] != "1") continue;  // header, or not served as forced
        Series& s = data[f[0]][{std::atoi(f[2].c_str()), std::atoi(f[3].c_str())}][std::atoi(f[1].c_str())];
        s.ranks = std::atoi(f[2].c_str());
        s.subspaces = std::atoi(f[3].c_str());
        s.bytes.push_back(std::atof(f[4].c_str()));
        s.us.push_back(std::atof(f[5].c_str()));
        s.mbps.push_back(std::atof(f[6].c_str()));
    }
    json doc = emptyRules();
    doc["generator"] = "hieragg-tune";
    doc["created"] = static_cast<long long>(std::time(nullptr));
    for (auto& [name, byLayout] : data) {
        json sets = json::array();  // one rule set per layout; their valid ranges tell them apart
        for (auto& [layout, byProto] : byLayout) {
            hieragg_coll_kind kind;
            if (!tune::collectiveByName(name, kind)) continue;
            const auto ps = tune::protocolsOf(kind);
            struct Fitted {
                int index;
                hier::FitResult fit;
                const Series* s;
                int wins = 0;
                double meanRel = 0;
            };
            std::vector<Fitted> fitted;
            double lo = HUGE_VAL, hi = 0;
            int ranks = 0, subspaces = 0;
            for (auto& [index, s] : byProto) {
                if (index < 0 || index >= static_cast<int>(ps.size()) || s.bytes.size() < 3) continue;
                Fitted f{index, {}, &s};
                const bool constant = *std::max_element(s.bytes.begin(), s.bytes.end()) ==
                                      *std::min_element(s.bytes.begin(), s.bytes.end());
                if (constant) {  // barrier: no size to fit against
                    std::vector<double> t = s.us;
                    std::sort(t.begin(), t.end());
                    f.fit.function.coeffs = {t[t.size() / 2], 0};
                    f.fit.why = "size-independent: median of " + std::to_string(t.size()) + " runs";
                } else {
                    try {
                        f.fit = hier::fitTimes(s.bytes, s.us);
                    } catch (const std::exception& e) {
                        std::cerr << name << " " << ps[index].label() << ": " << e.what() << "\n";
                        continue;
                    }
                }
                fitted.push_back(f);
                lo = std::min(lo, *std::min_element(s.bytes.begin(), s.bytes.end()));
                hi = std::max(hi, *std::max_element(s.bytes.begin(), s.bytes.end()));
                ranks = s.ranks;
                subspaces = s.subspaces;
            }
            if (fitted.empty()) continue;
            // Order: most sizes measured fastest first, then the smallest mean time relative to the best.
            std::map<double, double> best;
            for (const Fitted& f : fitted)
                for (size_t i = 0; i < f.s->bytes.size(); ++i)
                    best[f.s->bytes[i]] = best.count(f.s->bytes[i]) ? std::min(best[f.s->bytes[i]], f.s->us[i]) : f.s->us[i];
            for (Fitted& f : fitted) {
                for (size_t i = 0; i < f.s->bytes.size(); ++i) {
                    f.wins += f.s->us[i] <= best[f.s->bytes[i]];
                    f.meanRel += f.s->us[i] / best[f.s->bytes[i]] / static_cast<double>(f.s->bytes.size());
                }
            }
            std::stable_sort(fitted.begin(), fitted.end(), [](const Fitted& a, const Fitted& b) {
                return a.wins != b.wins ? a.wins > b.wins : a.meanRel < b.meanRel;
            });
            json coll = {{"metric", "relative_speed"},
                         {"threshold", threshold},
                         {"valid", {{"bytes", {lo, hi}}, {"ranks", {ranks, ranks}}, {"subspaces", {subspaces, subspaces}}}},
                         {"candidates", json::array()}};
            std::printf("%s (%d ranks, %d subspaces):\n", name.c_str(), ranks, subspaces);
            for (const Fitted& f : fitted) {
                json c = candidateJson(ps[f.index], f.fit.function);
                c["fit_note"] = f.fit.why;
                c["measured"] = {{"bytes", f.s->bytes}, {"us", f.s->us}, {"mbps", f.s->mbps}};
                coll["candidates"].push_back(c);
                std::printf("  %-22s fastest at %2d of %zu sizes, %s\n", ps[f.index].label().c_str(), f.wins,
                            f.s->bytes.size(), f.fit.why.c_str());
            }
            // Crossovers: where the selection (first candidate within `threshold` of the fastest fit) changes.
            std::vector<json> ranges;
            int current = -1;
            double from = lo;
            const int steps = 400;
            for (int i = 0; i < steps; ++i) {  // the last range runs to hi
                const double b = lo <= 0 || hi <= lo ? hi : lo * std::pow(hi / lo, static_cast<double>(i) / steps);
                double fastest = HUGE_VAL;
                for (const Fitted& f : fitted) fastest = std::min(fastest, f.fit.function.timeUs(b, ranks, subspaces));
                int pick = 0;
                for (size_t j = 0; j < fitted.size(); ++j)
                    if (fastest / std::max(fitted[j].fit.function.timeUs(b, ranks, subspaces), 1e-12) >= threshold * (1 - 1e-12)) {
                        pick = static_cast<int>(j);
                        break;
                    }
                if (pick != current) {
                    if (current >= 0) ranges.push_back({{"from", from}, {"to", b}, {"protocol", ps[fitted[current].index].label()}});
                    current = pick;
                    from = b;
                }
            }
            ranges.push_back({{"from", from}, {"to", hi}, {"protocol", ps[fitted[current].index].label()}});
            coll["selected"] = ranges;
            std::printf("  selection:");
            for (const json& r : ranges)
                std::printf(" [%s .. %s] %s;", human(r["from"]).c_str(), human(r["to"]).c_str(),
                            r["protocol"].get<std::string>().c_str());
            std::printf("\n");
            sets.push_back(coll);
        }
        if (sets.size() == 1)
            doc["collectives"][name] = sets[0];
        else if (!sets.empty())
            doc["collectives"][name] = sets;
    }
    if (doc["collectives"].empty()) {
        std::cerr << "hieragg-tune-fit: no protocol has 3 measured sizes; nothing to write\n";
        return 1;
    }
    return writeChecked(doc, path) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "protocols" && argc == 3) return protocols(argv[2]);
    if (cmd == "force" && argc == 5) return force(std::atoi(argv[2]), argv[3], argv[4]);
    if (cmd == "fit" && (argc == 4 || argc == 5)) {
        const double t = argc == 5 ? std::atof(argv[4]) : 1.0;
        if (!(t > 0 && t <= 1)) {
            std::cerr << "hieragg-tune-fit: the threshold must lie in (0, 1]\n";
            return 2;
        }
        return fit(argv[2], argv[3], t);
    }
    std::cerr << "usage: hieragg-tune-fit protocols COLLS | force INDEX COLLS OUT.json | fit DATA.csv OUT.json "
                 "[THRESHOLD]\n";
    return 2;
}
