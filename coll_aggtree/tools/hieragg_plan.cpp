// hieragg-plan: plans an aggregation tree for a communicator on a fabric (type I k-ary,
// k-nomial, hierarchical k-nomial, or type II in-switch), explains the choice with the
// cost model, and reproduces the paper's figures 6, 16, 19 and 20 by simulation.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "hieragg/aggtree/CostModel.hpp"
#include "hieragg/aggtree/Fabric.hpp"
#include "hieragg/aggtree/FabricGenerators.hpp"
#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"
#include "hieragg/aggtree/KaryTree.hpp"
#include "hieragg/aggtree/KnomialTree.hpp"
#include "hieragg/aggtree/Reproduce.hpp"
#include "hieragg/aggtree/SlurmTopology.hpp"
#include "hieragg/aggtree/TrafficModel.hpp"
#include "hieragg/aggtree/TypeTwoTree.hpp"
#include "hieragg/aggtree/WidthCurve.hpp"
#include "SelectCommand.hpp"

using namespace hieragg::aggtree;
using nlohmann::json;

namespace {

std::vector<int> splitInts(const std::string& spec, size_t from) {
    std::vector<int> out;
    std::stringstream ss(spec.substr(from));
    for (std::string part; std::getline(ss, part, ':');)
        if (!part.empty()) out.push_back(std::stoi(part));
    return out;
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Generator specs (numbers after the colon, optional ones in brackets):
//   fattree:LEAVES:NICS_PER_LEAF:SPINES[:NICS_PER_NODE]   two-level fat tree
//   pruned:LEAVES:NICS_PER_LEAF[:NICS_PER_NODE]           pruned fat tree (one uplink per leaf)
//   karyn:K:N[:NICS_PER_NODE]                             k-ary n-tree
//   supernode[:SUPERNODES]                                the paper's supernode fabric
//   anything else: a Slurm topology.conf path (with --nics-per-node)
Fabric loadFabric(const std::string& spec, int nicsPerNode) {
    auto argsOf = [&](const std::string& name, size_t need) {
        auto v = splitInts(spec, name.size() + 1);
        if (v.size() < need) throw std::invalid_argument("fabric spec '" + spec + "' needs " + std::to_string(need) + " numbers");
        return v;
    };
    if (startsWith(spec, "fattree:")) {
        auto v = argsOf("fattree", 3);
        return twoLevelFatTree(v[0], v[1], v[2], v.size() > 3 ? v[3] : nicsPerNode);
    }
    if (startsWith(spec, "pruned:")) {
        auto v = argsOf("pruned", 2);
        return prunedTwoLevelFatTree(v[0], v[1], v.size() > 2 ? v[2] : nicsPerNode);
    }
    if (startsWith(spec, "karyn:")) {
        auto v = argsOf("karyn", 2);
        return kAryNTree(v[0], v[1], v.size() > 2 ? v[2] : nicsPerNode);
    }
    if (spec == "supernode" || startsWith(spec, "supernode:")) {
        SupernodeFabricSpec s;
        if (spec != "supernode") s.supernodes = argsOf("supernode", 1)[0];
        return supernodeFabric(s);
    }
    return fabricFromSlurm(loadSlurmTopology(spec), nicsPerNode);
}

// The switch a NIC hangs from (its first neighbour; NICs have one link).
int leafSwitchOf(const Fabric& fabric, int nic) {
    for (auto [v, link] : fabric.adjacent(nic)) {
        (void)link;
        if (fabric.isSwitch(v)) return v;
    }
    return -1;
}

// Hierarchy for the hierarchical k-nomial tree: node, then leaf switch.
ProcessHierarchy hierarchyOf(const Fabric& fabric, const ProcessPlacement& placement) {
    ProcessHierarchy h;
    h.process_count = placement.size();
    std::vector<int> node(h.process_count), leaf(h.process_count);
    for (int r = 0; r < h.process_count; ++r) {
        node[r] = fabric.nodeOf(placement.nicOfRank[r]);
        leaf[r] = leafSwitchOf(fabric, placement.nicOfRank[r]);
    }
    h.levels = {node, leaf};
    return h;
}

const char* kPalette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                          "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};

// Graphviz drawing: type I vertices are ranks coloured by leaf switch; type II vertices
// are switches (boxes) and NICs. Edges point from child to parent (aggregation direction).
std::string toDot(const Fabric& fabric, const Tree& tree, const std::vector<int>& vertexToFabric,
                  const ProcessPlacement* placement) {
    std::ostringstream dot;
    dot << "digraph aggregation {\n  rankdir=BT;\n  node [style=filled, fontsize=10];\n";
    for (int v = 0; v < tree.size(); ++v) {
        int fv = placement ? placement->nicOfRank[v] : vertexToFabric[v];
        int group = fabric.isSwitch(fv) ? fv : leafSwitchOf(fabric, fv);
        const char* colour = kPalette[(group < 0 ? 0 : group) % 12];
        if (placement)
            dot << "  v" << v << " [label=\"" << v << "\", fillcolor=\"" << colour << "\"];\n";
        else
            dot << "  v" << v << " [label=\"" << fabric.name(fv) << "\", shape=" << (fabric.isSwitch(fv) ? "box" : "ellipse")
                << ", fillcolor=\"" << colour << "\"];\n";
    }
    for (int v = 0; v < tree.size(); ++v)
        if (tree.parent[v] != Tree::kNone) dot << "  v" << v << " -> v" << tree.parent[v] << ";\n";
    dot << "}\n";
    return dot.str();
}

void writeFile(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    if (!out || !(out << text)) throw std::runtime_error("cannot write " + path);
}

void renderDot(const std::string& dotFile, const std::string& out, const char* format) {
    std::string cmd = std::string("dot -T") + format + " '" + dotFile + "' -o '" + out + "'";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("graphviz failed: " + cmd);
}

struct PlanOptions {
    std::string fabric = "pruned:32:16";
    int processes = 0;  // 0: one per NIC
    int perNic = 1;
    int nicsPerNode = 2;
    std::string op = "bcast";
    double bytes = 8;
    int elementBytes = 8;
    std::string k = "auto";
    std::string tree = "auto";
    int root = 0;
    int degreeLimit = 0;      // 0: none (type I); type II uses switch_degree
    int entries = 16;
    std::string dotPath, svgPath, pngPath, jsonPath;
};

int runPlan(const PlanOptions& o) {
    Fabric fabric = loadFabric(o.fabric, o.nicsPerNode);
    const int P = o.processes > 0 ? o.processes : static_cast<int>(fabric.nics().size()) * o.perNic;
    ProcessPlacement placement = placeBlock(fabric, P, o.perNic);
    if (o.root < 0 || o.root >= P) throw std::invalid_argument("--root outside [0, P)");
    const CollectiveOp op = parseCollectiveOp(o.op);
    CostParameters cost;
    if (o.degreeLimit > 0) cost.switch_degree = o.degreeLimit;
    TreeRecommendation rec = recommendTree(P, op, o.bytes, o.elementBytes, cost, o.tree == "auto" || o.tree == "type2");

    std::string kind = o.tree;
    std::string why = rec.reason;
    if (kind == "auto") kind = rec.type == TreeType::TypeTwo ? "type2" : "hier";
    int k = o.k == "auto" ? rec.band.k_star : std::stoi(o.k);
    if (o.k == "auto" && kind != "type2") why += "; k = k* from the cost model";

    json j;
    TrafficTimeParameters traffic;
    const Packet packet = packetFor(op, o.bytes, o.elementBytes);
    traffic.link_latency_us = cost.l_us;
    traffic.nic_packet_us = cost.process.perPacketUs(packet.bytes, packet.elements);
    traffic.switch_packet_us = cost.sw.perPacketUs(packet.bytes, packet.elements);
    TrafficReport report;
    Tree tree;
    std::vector<int> vertexToFabric;
    bool typeTwo = false;

    if (kind == "type2") {
        FabricLoad load = FabricLoad::withEntries(fabric, o.entries);
        auto alloc = allocateTypeTwoTree(fabric, placement.distinctNics(), TypeTwoMethod::MinimumCost,
                                         uniformDegreeLimit(fabric, cost.switch_degree), load);
        if (alloc.status == TypeTwoStatus::Allocated) {
            typeTwo = true;
            tree = alloc.tree.tree;
            vertexToFabric = alloc.tree.fabricVertex;
            report = typeTwoTraffic(fabric, alloc.tree, placement.multiplicity(fabric), traffic);
            k = tree.maxDegree();
        } else {
            why += "; type II allocation failed (" + alloc.reason + "), falling back to a hierarchical type I tree";
            kind = "hier";
        }
    }
    if (!typeTwo) {
        if (kind == "hier") {
            ProcessHierarchy h = hierarchyOf(fabric, placement);
            if (o.degreeLimit > 0) {
                int limited = largestWidthWithinDegree(h, o.root, k, o.degreeLimit);
                if (limited == 0) throw std::runtime_error("no k >= 2 keeps every node within the degree limit");
                if (limited != k) why += "; k lowered to " + std::to_string(limited) + " for the degree limit";
                k = limited;
            }
            tree = buildHierarchicalKnomialTree(h, k, o.root);
        } else if (kind == "knomial") {
            tree = buildKnomialTree(P, k, o.root);
        } else if (kind == "kary") {
            tree = buildKaryTree(P, k, o.root);
        } else {
            throw std::invalid_argument("--tree must be kary|knomial|hier|type2|auto");
        }
        report = typeOneTraffic(fabric, tree, placement, traffic);
    }

    const double modelUs = typeTwo ? aggregationTimeUs(report.radiusLinks, report.heightEdges, report.maxChildren,
                                                       traffic.switch_packet_us, cost.l_us)
                                   : aggregationTimeUs(report.radiusLinks, report.heightEdges, report.maxChildren,
                                                       traffic.nic_packet_us, cost.l_us);
    std::cout << "fabric        " << o.fabric << " (" << fabric.switches().size() << " switches, " << fabric.nics().size()
              << " NICs)\n"
              << "processes     " << P << " (" << o.perNic << " per NIC), root " << o.root << "\n"
              << "operation     " << o.op << ", " << o.bytes << " bytes\n"
              << "tree          " << kind << (typeTwo ? " (in-switch)" : "") << ", k = " << k << "\n"
              << "height        " << report.heightEdges << "\n"
              << "radius        " << report.radiusLinks << " links\n"
              << "max degree    " << report.maxChildren << "\n"
              << "entries used  " << report.entriesUsed << "\n"
              << "link packets  max " << report.maxLinkPackets << ", total " << report.totalLinkPackets << "\n"
              << "predicted     " << report.predictedUs << " us (traffic model), " << modelUs
              << " us (r·l + h·k·b)\n"
              << "why           " << why << "\n";
    json links = json::array();
    std::cout << "busiest links:\n";
    std::vector<std::tuple<long long, int, int, int>> busy;  // packets, link, from, to
    for (int id = 0; id < fabric.linkCount(); ++id) {
        const auto& l = fabric.link(id);
        if (report.forward[id]) busy.emplace_back(report.forward[id], id, l.a, l.b);
        if (report.backward[id]) busy.emplace_back(report.backward[id], id, l.b, l.a);
    }
    std::sort(busy.rbegin(), busy.rend());
    for (size_t i = 0; i < busy.size(); ++i) {
        auto [n, id, from, to] = busy[i];
        if (i < 10) std::cout << "  " << fabric.name(from) << " -> " << fabric.name(to) << ": " << n << "\n";
        links.push_back({{"link", id}, {"from", fabric.name(from)}, {"to", fabric.name(to)}, {"packets", n}});
    }

    if (!o.jsonPath.empty()) {
        j = {{"fabric", o.fabric}, {"processes", P}, {"root", o.root}, {"op", o.op}, {"bytes", o.bytes},
             {"tree", kind}, {"k", k}, {"height", report.heightEdges}, {"radius_links", report.radiusLinks},
             {"max_degree", report.maxChildren}, {"entries_used", report.entriesUsed},
             {"max_link_packets", report.maxLinkPackets}, {"total_link_packets", report.totalLinkPackets},
             {"predicted_us", report.predictedUs}, {"model_us", modelUs}, {"reason", why},
             {"type_one_model_us", rec.type_one_us}, {"type_two_model_us", rec.type_two_us},
             {"k_band", {rec.band.k_min, rec.band.k_max}}, {"parent", tree.parent}, {"links", links}};
        if (o.jsonPath == "-")
            std::cout << j.dump(2) << "\n";
        else
            writeFile(o.jsonPath, j.dump(2) + "\n");
    }
    std::string dotPath = o.dotPath;
    if (dotPath.empty() && (!o.svgPath.empty() || !o.pngPath.empty())) dotPath = (o.svgPath.empty() ? o.pngPath : o.svgPath) + ".dot";
    if (!dotPath.empty()) {
        writeFile(dotPath, toDot(fabric, tree, vertexToFabric, typeTwo ? nullptr : &placement));
        if (!o.svgPath.empty()) renderDot(dotPath, o.svgPath, "svg");
        if (!o.pngPath.empty()) renderDot(dotPath, o.pngPath, "png");
    }
    return 0;
}

void reproduceFig6(const std::string& dir) {
    WidthCurve c = widthCurve(1.12, 0.01, 512, 0.1);
    writeWidthCurve(c, dir);
    std::cout << "fig6: k* = " << c.band.k_star << ", F* = " << c.band.f_star_us << " us, band [" << c.band.k_min
              << ", " << c.band.k_max << "] for eps = 0.1 us (paper: k* = 41, [24, 64])\n";
}

void reproduceFig16Files(const std::string& dir) {
    const int P = 512;
    ProcessHierarchy h = hierarchyFromBlockSizes(P, {2, 16});
    std::vector<std::pair<std::string, Tree>> trees = {{"32-ary", buildKaryTree(P, 32, 0)},
                                                       {"32-nomial", buildKnomialTree(P, 32, 0)},
                                                       {"hierarchical 32-nomial", buildHierarchicalKnomialTree(h, 32, 0)}};
    auto rows = reproduceFig16(trees);
    writeFig16(rows, dir);
    for (const auto& r : rows)
        std::cout << "fig16: " << r.tree << ": max uplink " << r.maxUplink << ", inter-leaf " << r.interLeaf
                  << ", root leaf in " << r.rootLeafIn << "\n";
}

void reproduceFig1920Files(const std::string& dir) {
    auto rows = reproduceFig19And20(paperPatterns());
    writeFig19And20(rows, dir);
    for (const auto& r : rows)
        std::cout << "fig19/20: " << r.pattern << ": entries " << r.physicalEntries << " -> " << r.minimumCostEntries
                  << " (-" << r.entryReductionPercent << "%), failures " << r.physicalFailurePercent << "% vs "
                  << r.minimumCostFailurePercent << "%\n";
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"hieragg-plan: aggregation tree planner and paper-figure reproduction"};
    app.require_subcommand(1);

    PlanOptions o;
    auto* plan = app.add_subcommand("plan", "plan an aggregation tree and explain it");
    plan->add_option("--fabric", o.fabric,
                     "fattree:LEAVES:NICS_PER_LEAF:SPINES[:NICS_PER_NODE] | pruned:LEAVES:NICS_PER_LEAF[:NICS_PER_NODE] | "
                     "karyn:K:N[:NICS_PER_NODE] | supernode[:N] | path to a Slurm topology.conf")
        ->capture_default_str();
    plan->add_option("-P,--processes", o.processes, "processes (default: every NIC times --per-nic)");
    plan->add_option("--per-nic", o.perNic, "placement: consecutive ranks per NIC")->capture_default_str();
    plan->add_option("--nics-per-node", o.nicsPerNode, "NICs per node for generators and topology.conf")->capture_default_str();
    plan->add_option("--op", o.op, "barrier|bcast|reduce|allreduce")->capture_default_str();
    plan->add_option("--size", o.bytes, "message size in bytes")->capture_default_str();
    plan->add_option("--element-size", o.elementBytes, "bytes per reduced element")->capture_default_str();
    plan->add_option("-k", o.k, "tree width or 'auto' (cost model k*)")->capture_default_str();
    plan->add_option("--tree", o.tree, "kary|knomial|hier|type2|auto")
        ->check(CLI::IsMember({"kary", "knomial", "hier", "type2", "auto"}))
        ->capture_default_str();
    plan->add_option("--root", o.root, "root rank")->capture_default_str();
    plan->add_option("--degree-limit", o.degreeLimit, "max children per node (type I: lowers k; type II: K(sw))");
    plan->add_option("--entries", o.entries, "free aggregation entries per switch (type II)")->capture_default_str();
    plan->add_option("--dot", o.dotPath, "write a Graphviz drawing");
    plan->add_option("--svg", o.svgPath, "render the drawing to SVG with dot");
    plan->add_option("--png", o.pngPath, "render the drawing to PNG with dot");
    plan->add_option("--json", o.jsonPath, "write the plan as JSON ('-' for stdout)");

    std::string figure = "all", outDir = "repro";
    auto* repro = app.add_subcommand("reproduce", "reproduce the paper's figures by simulation");
    repro->add_option("figure", figure, "fig6|fig16|fig19-20|all")
        ->check(CLI::IsMember({"fig6", "fig16", "fig19-20", "all"}))
        ->capture_default_str();
    repro->add_option("--out", outDir, "output directory")->capture_default_str();

    hieragg::tools::SelectOptions so;
    auto* sel = app.add_subcommand("select", "the component's choice for one call (algorithm, tree, k, chunk, "
                                             "predicted time) with the same cost parameters");
    sel->add_option("--coll", so.coll, "bcast|reduce|allreduce|barrier|gather|scatter|...")->capture_default_str();
    sel->add_option("-P,--processes", so.processes, "communicator size")->capture_default_str();
    sel->add_option("--ranks-per-node", so.ranksPerNode, "synthetic nodes of consecutive ranks")->capture_default_str();
    sel->add_option("--split", so.split, "coll_hieragg_split value")->capture_default_str();
    sel->add_option("--size", so.bytes, 
                    "message bytes per rank (reduce_scatter: the whole vector, split over the ranks as "
                    "hieragg-bench does)")->capture_default_str();
    sel->add_option("--element-size", so.elementBytes, "bytes per element")->capture_default_str();
    sel->add_option("--root", so.root, "root rank")->capture_default_str();
    sel->add_option("--algorithm", so.algorithm, "force a registry row (as coll_hieragg_<coll>_algorithm)")
        ->capture_default_str();
    sel->add_option("--params", so.params, "file of coll_hieragg_cost_* = value lines (hieragg-calibrate output)");
    for (auto& [name, mo] : {std::pair{std::string("network"), &so.network}, std::pair{std::string("node"), &so.node}}) {
        const std::string opt = "--measured-" + name + "-";
        sel->add_option(opt + "alpha", mo->alphaUs,
                        name + " alpha [us] as measured at setup (with " + opt +
                            "beta; applied like the component's measurement, after --params)");
        sel->add_option(opt + "beta", mo->betaNs, name + " beta [ns/B] as measured at setup");
        sel->add_option(opt + "exchange", mo->exchangeUs,
                        "one exchange round [us] as measured at setup (with the two above; the component's "
                        "verbose line 'exchange=')");
        sel->add_option(opt + "rendezvous", mo->rendezvousUs,
                        "rendezvous [us] past the eager limit as measured at setup (with " + opt + "eager)");
        sel->add_option(opt + "eager", mo->eagerBytes, "the eager limit [B] of the verbose line");
        sel->add_option(opt + "burst", mo->burstUs,
                        "burst [us] per further message as measured" +
                            std::string(name == "node" ? " (inside a node also theta)" : ""));
        sel->add_option(opt + "duplex", mo->duplexNs,
                        "per byte each way [ns/B] with both directions busy at once, as measured (the "
                        "verbose line's 'duplex beta=')");
        sel->add_option(opt + "noise", mo->noise,
                        "the measurement's noise (0.12 for 12%): predictions within it keep the earlier row");
    }
    sel->add_option("--node-cores", so.nodeCores,
                    "cores of a node (0: unknown); fewer than --ranks-per-node: the component's terms for an "
                    "oversubscribed node")
        ->capture_default_str();
    sel->add_option("--segment", so.segmentBytes, "coll_hieragg_segment_size")->capture_default_str();
    sel->add_flag("!--non-commutative", so.commutative, "the reduction's op does not commute");
    sel->add_option("--switch-entries", so.switchEntries, "coll_hieragg_switch_entries (type2)")->capture_default_str();
    sel->add_option("--switch-degree", so.switchDegree, "coll_hieragg_switch_degree (type2)")->capture_default_str();

    CLI11_PARSE(app, argc, argv);
    try {
        if (*plan) return runPlan(o);
        if (*sel) return hieragg::tools::runSelect(so);
        std::filesystem::create_directories(outDir);
        if (figure == "fig6" || figure == "all") reproduceFig6(outDir);
        if (figure == "fig16" || figure == "all") reproduceFig16Files(outDir);
        if (figure == "fig19-20" || figure == "all") reproduceFig1920Files(outDir);
        std::cout << "written to " << outDir << "\n";
    } catch (const std::exception& e) {
        std::cerr << "hieragg-plan: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
