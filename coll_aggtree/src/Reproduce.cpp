#include "hieragg/aggtree/Reproduce.hpp"

#include "hieragg/aggtree/FabricGenerators.hpp"
#include "hieragg/aggtree/TrafficModel.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

namespace hieragg::aggtree {

namespace {

std::ofstream openOutput(const std::string& directory, const std::string& file) {
    std::filesystem::create_directories(directory);
    std::string path = (std::filesystem::path(directory) / file).string();
    std::ofstream out(path);
    if (!out) throw std::runtime_error(path + ": cannot write");
    return out;
}

std::string escapeXml(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '<') o += "&lt;";
        else if (c == '>') o += "&gt;";
        else if (c == '&') o += "&amp;";
        else o += c;
    }
    return o;
}

// A grouped bar chart: one group per category, one bar per series, value labels on bars.
std::string groupedBarsSvg(const std::string& title, const std::string& yLabel,
                           const std::vector<std::string>& categories, const std::vector<std::string>& series,
                           const std::vector<std::vector<double>>& values) {
    const double W = 900, H = 460, left = 80, right = 20, top = 50, bottom = 90;
    double maxV = 0;
    for (const auto& s : values)
        for (double v : s) maxV = std::max(maxV, v);
    if (maxV <= 0) maxV = 1;
    const char* colours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2"};
    std::ostringstream o;
    o << std::fixed << std::setprecision(1);
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    o << "<text x=\"" << W / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">" << escapeXml(title) << "</text>\n";
    o << "<text x=\"16\" y=\"" << (top + (H - top - bottom) / 2) << "\" transform=\"rotate(-90 16 "
      << (top + (H - top - bottom) / 2) << ")\" text-anchor=\"middle\">" << escapeXml(yLabel) << "</text>\n";
    const double plotW = W - left - right, plotH = H - top - bottom;
    o << "<line x1=\"" << left << "\" y1=\"" << top + plotH << "\" x2=\"" << W - right << "\" y2=\"" << top + plotH
      << "\" stroke=\"black\"/>\n";
    o << "<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left << "\" y2=\"" << top + plotH
      << "\" stroke=\"black\"/>\n";
    for (int t = 0; t <= 4; ++t) {
        double v = maxV * t / 4, y = top + plotH - plotH * t / 4;
        o << "<text x=\"" << left - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">" << std::setprecision(0) << v
          << std::setprecision(1) << "</text>\n";
    }
    const double groupW = plotW / std::max<size_t>(1, categories.size());
    const double barW = groupW * 0.8 / std::max<size_t>(1, series.size());
    for (size_t c = 0; c < categories.size(); ++c) {
        double gx = left + groupW * c + groupW * 0.1;
        for (size_t s = 0; s < series.size(); ++s) {
            double v = values[s][c], h = plotH * v / maxV;
            double x = gx + barW * s, y = top + plotH - h;
            o << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << barW * 0.95 << "\" height=\"" << h
              << "\" fill=\"" << colours[s % 5] << "\"/>\n";
            o << "<text x=\"" << x + barW / 2 << "\" y=\"" << y - 3 << "\" text-anchor=\"middle\" font-size=\"10\">"
              << std::setprecision(v == static_cast<long long>(v) ? 0 : 1) << v << std::setprecision(1) << "</text>\n";
        }
        o << "<text x=\"" << gx + groupW * 0.4 << "\" y=\"" << top + plotH + 18
          << "\" text-anchor=\"middle\">" << escapeXml(categories[c]) << "</text>\n";
    }
    for (size_t s = 0; s < series.size(); ++s) {
        double x = left + 10 + 200 * s, y = H - 30;
        o << "<rect x=\"" << x << "\" y=\"" << y - 10 << "\" width=\"12\" height=\"12\" fill=\"" << colours[s % 5]
          << "\"/><text x=\"" << x + 18 << "\" y=\"" << y << "\">" << escapeXml(series[s]) << "</text>\n";
    }
    o << "</svg>\n";
    return o.str();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Figure 16

std::vector<Fig16Row> reproduceFig16(const std::vector<std::pair<std::string, Tree>>& trees, const Fig16Setup& s) {
    if (s.processes < 1 || s.processesPerNode < 1 || s.processesPerLeaf < 1 || s.processesPerLeaf % s.processesPerNode)
        throw std::invalid_argument("reproduceFig16: bad setup");
    const int leaves = (s.processes + s.processesPerLeaf - 1) / s.processesPerLeaf;
    Fabric fabric = prunedTwoLevelFatTree(leaves, s.processesPerLeaf, s.processesPerNode);
    ProcessPlacement placement = placeBlock(fabric, s.processes);
    const int core = fabric.findByName("core");
    std::vector<int> uplink(leaves), leafVertex(leaves);
    for (int i = 0; i < leaves; ++i) {
        leafVertex[i] = fabric.findByName("leaf" + std::to_string(i));
        uplink[i] = fabric.linkBetween(leafVertex[i], core);
    }
    std::vector<Fig16Row> rows;
    for (const auto& [name, tree] : trees) {
        if (tree.size() != s.processes)
            throw std::invalid_argument("reproduceFig16: tree '" + name + "' has " + std::to_string(tree.size()) +
                                        " vertices, expected " + std::to_string(s.processes));
        TrafficReport r = typeOneTraffic(fabric, tree, placement);
        Fig16Row row;
        row.tree = name;
        const int rootLeaf = s.processes > 0 ? tree.root / s.processesPerLeaf : 0;
        for (int i = 0; i < leaves; ++i) {
            long long up = r.packets(fabric, uplink[i], leafVertex[i]);
            long long down = r.packets(fabric, uplink[i], core);
            row.upPerLeaf.push_back(up);
            row.downPerLeaf.push_back(down);
            row.maxUplink = std::max({row.maxUplink, up, down});
            row.interLeaf += up;  // each inter-leaf packet climbs exactly one uplink
        }
        row.rootLeafIn = row.downPerLeaf[rootLeaf];
        row.rootLeafOut = row.upPerLeaf[rootLeaf];
        row.totalLinkPackets = r.totalLinkPackets;
        row.predictedUs = r.predictedUs;
        rows.push_back(std::move(row));
    }
    return rows;
}

void writeFig16(const std::vector<Fig16Row>& rows, const std::string& directory) {
    {
        auto out = openOutput(directory, "fig16.csv");
        out << "tree,root_leaf_in,root_leaf_out,max_uplink,inter_leaf_packets,total_link_packets,predicted_us\n";
        for (const auto& r : rows)
            out << r.tree << ',' << r.rootLeafIn << ',' << r.rootLeafOut << ',' << r.maxUplink << ',' << r.interLeaf
                << ',' << r.totalLinkPackets << ',' << r.predictedUs << '\n';
    }
    {
        auto out = openOutput(directory, "fig16_links.csv");
        out << "tree,leaf,leaf_to_core,core_to_leaf\n";
        for (const auto& r : rows)
            for (size_t i = 0; i < r.upPerLeaf.size(); ++i)
                out << r.tree << ',' << i << ',' << r.upPerLeaf[i] << ',' << r.downPerLeaf[i] << '\n';
    }
    std::vector<std::string> cats;
    std::vector<std::vector<double>> vals(3);
    for (const auto& r : rows) {
        cats.push_back(r.tree);
        vals[0].push_back(static_cast<double>(r.rootLeafIn));
        vals[1].push_back(static_cast<double>(r.maxUplink));
        vals[2].push_back(static_cast<double>(r.interLeaf));
    }
    auto out = openOutput(directory, "fig16.svg");
    out << groupedBarsSvg("Fig. 16: aggregation packets between leaf switches (512 processes, pruned fat tree)",
                          "packets per reduction", cats,
                          {"into the root's leaf", "max on any uplink", "total inter-leaf"}, vals);
}

// ---------------------------------------------------------------------------------------------
// Figures 19 and 20

CommunicatorPattern gridPattern(const std::string& name, const std::vector<int>& dims) {
    CommunicatorPattern p;
    p.name = name;
    long long total = 1;
    for (int d : dims) {
        if (d < 1) throw std::invalid_argument("gridPattern: dimension < 1");
        total *= d;
    }
    if (total > std::numeric_limits<int>::max()) throw std::invalid_argument("gridPattern: too large");
    p.processes = static_cast<int>(total);
    std::vector<long long> stride(dims.size(), 1);
    for (size_t i = 1; i < dims.size(); ++i) stride[i] = stride[i - 1] * dims[i - 1];
    for (size_t d = 0; d < dims.size(); ++d) {
        // One communicator per line along dimension d: every rank whose coordinate d is 0 starts one.
        for (long long r = 0; r < total; ++r) {
            if ((r / stride[d]) % dims[d] != 0) continue;
            std::vector<int> comm(dims[d]);
            for (int i = 0; i < dims[d]; ++i) comm[i] = static_cast<int>(r + i * stride[d]);
            p.communicators.push_back(std::move(comm));
        }
    }
    return p;
}

CommunicatorPattern randomPattern(const std::string& name, int processes, int size, unsigned seed) {
    if (processes < 1 || size < 1) throw std::invalid_argument("randomPattern: sizes must be >= 1");
    CommunicatorPattern p;
    p.name = name;
    p.processes = processes;
    std::vector<int> ranks(processes);
    std::iota(ranks.begin(), ranks.end(), 0);
    std::mt19937 rng(seed);
    std::shuffle(ranks.begin(), ranks.end(), rng);
    for (int i = 0; i < processes; i += size)
        p.communicators.emplace_back(ranks.begin() + i, ranks.begin() + std::min(processes, i + size));
    return p;
}

std::vector<CommunicatorPattern> paperPatterns(unsigned seed) {
    return {gridPattern("2D 256x160 (aware)", {256, 160}), gridPattern("2D 202x202 (unaware)", {202, 202}),
            gridPattern("3D 32x16x80 (aware)", {32, 16, 80}), gridPattern("3D 34x34x35 (unaware)", {34, 34, 35}),
            randomPattern("random 160x256", 40960, 256, seed)};
}

std::vector<Fig1920Row> reproduceFig19And20(const std::vector<CommunicatorPattern>& patterns, const Fig1920Options& o) {
    SupernodeFabricSpec spec;
    spec.supernodes = o.supernodes;
    Fabric fabric = supernodeFabric(spec);
    const auto K = uniformDegreeLimit(fabric, o.degreeLimit);
    const int unlimited = std::numeric_limits<int>::max() / 2;
    std::vector<Fig1920Row> rows;
    for (const auto& pattern : patterns) {
        if (pattern.processes > static_cast<int>(fabric.nics().size()))
            throw std::invalid_argument("reproduceFig19And20: pattern '" + pattern.name + "' needs " +
                                        std::to_string(pattern.processes) + " NICs, fabric has " +
                                        std::to_string(fabric.nics().size()));
        Fig1920Row row;
        row.pattern = pattern.name;
        row.communicators = static_cast<int>(pattern.communicators.size());
        FabricLoad physAll = FabricLoad::withEntries(fabric, unlimited);
        FabricLoad minAll = FabricLoad::withEntries(fabric, unlimited);
        FabricLoad phys16 = FabricLoad::withEntries(fabric, o.entriesPerSwitch);
        FabricLoad min16 = FabricLoad::withEntries(fabric, o.entriesPerSwitch);
        for (const auto& comm : pattern.communicators) {
            std::vector<int> nics;
            nics.reserve(comm.size());
            for (int r : comm) nics.push_back(fabric.nics().at(r));
            const auto candidates = rootCandidates(fabric, nics);
            auto a = allocateTypeTwoTree(fabric, nics, TypeTwoMethod::Physical, K, physAll, &candidates);
            if (a.status == TypeTwoStatus::Allocated) row.physicalEntries += a.tree.switchCount(fabric);
            auto b = allocateTypeTwoTree(fabric, nics, TypeTwoMethod::MinimumCost, K, minAll, &candidates);
            if (b.status == TypeTwoStatus::Allocated) row.minimumCostEntries += b.tree.switchCount(fabric);
            row.physicalFailures +=
                allocateTypeTwoTree(fabric, nics, TypeTwoMethod::Physical, K, phys16, &candidates).status !=
                TypeTwoStatus::Allocated;
            row.minimumCostFailures +=
                allocateTypeTwoTree(fabric, nics, TypeTwoMethod::MinimumCost, K, min16, &candidates).status !=
                TypeTwoStatus::Allocated;
        }
        if (row.physicalEntries > 0)
            row.entryReductionPercent = 100.0 * (1.0 - static_cast<double>(row.minimumCostEntries) / row.physicalEntries);
        if (row.communicators > 0) {
            row.physicalFailurePercent = 100.0 * row.physicalFailures / row.communicators;
            row.minimumCostFailurePercent = 100.0 * row.minimumCostFailures / row.communicators;
        }
        rows.push_back(row);
    }
    return rows;
}

void writeFig19And20(const std::vector<Fig1920Row>& rows, const std::string& directory) {
    {
        auto out = openOutput(directory, "fig19_20.csv");
        out << "pattern,communicators,physical_entries,minimum_cost_entries,entry_reduction_percent,"
               "physical_failures,minimum_cost_failures,physical_failure_percent,minimum_cost_failure_percent\n";
        out << std::fixed << std::setprecision(2);
        for (const auto& r : rows)
            out << '"' << r.pattern << "\"," << r.communicators << ',' << r.physicalEntries << ','
                << r.minimumCostEntries << ',' << r.entryReductionPercent << ',' << r.physicalFailures << ','
                << r.minimumCostFailures << ',' << r.physicalFailurePercent << ',' << r.minimumCostFailurePercent
                << '\n';
    }
    std::vector<std::string> cats;
    std::vector<std::vector<double>> entries(2), failures(2);
    for (const auto& r : rows) {
        cats.push_back(r.pattern);
        entries[0].push_back(static_cast<double>(r.physicalEntries));
        entries[1].push_back(static_cast<double>(r.minimumCostEntries));
        failures[0].push_back(r.physicalFailurePercent);
        failures[1].push_back(r.minimumCostFailurePercent);
    }
    std::vector<std::string> series{"physical tree", "minimum-cost tree"};
    openOutput(directory, "fig19.svg") << groupedBarsSvg(
        "Fig. 19: aggregation entries used (unlimited entries per switch)", "entries", cats, series, entries);
    openOutput(directory, "fig20.svg") << groupedBarsSvg(
        "Fig. 20: failure rate of type II tree creation (16 entries per switch)", "failure rate [%]", cats, series,
        failures);
}

}  // namespace hieragg::aggtree
