#include "SelectCommand.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Decomposition.hpp"
#include "hieragg/hier/LinkCalibration.hpp"
#include "hieragg/hier/OversubscribedNode.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/SpaceGroup.hpp"
#include "hieragg/hier/WholeTree.hpp"

namespace hieragg::tools {

namespace {
hieragg_coll_kind kindOf(const std::string& name) {
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k)
        if (name == hier::collectiveName(static_cast<hieragg_coll_kind>(k))) return static_cast<hieragg_coll_kind>(k);
    throw std::invalid_argument("unknown collective '" + name + "'");
}
}  // namespace

int runSelect(const SelectOptions& o) {
    hier::CostParams params = hier::CostParams::defaults();
    if (!o.params.empty()) {
        const std::string problems = hier::readCostParams(params, o.params);
        if (!problems.empty()) std::cerr << problems;
    }
    if (o.nodeCores > 0) {
        const int none[HIERAGG_LINK_CLASS_COUNT] = {};
        hier::applyNodeOversubscription(params, std::min(o.ranksPerNode, o.processes), o.nodeCores, none);
        params.nodeCores = o.nodeCores;
    }
    // The node first, as the component measures it.
    for (const auto& [link, mo] : {std::pair{hier::kLinkNode, &o.node}, std::pair{hier::kLinkNetwork, &o.network}}) {
        if (!(mo->alphaUs > 0 && mo->betaNs > 0)) continue;
        hier::MeasuredLink m;
        m.valid = true;
        m.alpha_us = mo->alphaUs;
        m.beta_ns_per_byte = mo->betaNs;
        m.exchange_us = mo->exchangeUs > 0 ? std::max(mo->exchangeUs, mo->alphaUs) : 0.0;
        if (mo->eagerBytes > 0) m.eager_bytes = mo->eagerBytes, m.rendezvous_us = mo->rendezvousUs;
        m.burst_us = std::max(0.0, mo->burstUs);
        m.duplex_beta_ns_per_byte = std::max(0.0, mo->duplexNs);
        m.noise = std::max(0.0, mo->noise);
        hier::applyMeasuredLink(params, link, m, {});
    }
    std::vector<hier::RankIdentity> ids(o.processes);
    for (int r = 0; r < o.processes; ++r) ids[r] = {r, "node" + std::to_string(r / std::max(1, o.ranksPerNode)), -1};
    hier::DecompositionResult d = hier::decomposeValue(o.split, ids);
    if (d.fellBack()) std::cerr << "warning: " << d.warning << "\n";
    if (!d.notice.empty()) std::cerr << "warning: " << d.notice << "\n";
    std::vector<int> links = hier::stageLinks(d.levelNames, d.hierarchy.levels());

    CollCall c;
    c.args.kind = kindOf(o.coll);
    c.size = o.processes;
    c.rank = o.root;
    c.args.root = o.root;
    c.args.op_commutative = o.commutative ? 1 : 0;
    const size_t count = static_cast<size_t>(o.bytes / std::max(1, o.elementBytes));
    c.args.rcount = c.args.scount = count;
    c.rtype = c.stype = {static_cast<size_t>(o.elementBytes), 0, o.elementBytes, 0, o.elementBytes};
    // A collective with per-rank receive counts gets them as hieragg-bench passes them: the
    // whole vector of --size split over the ranks (reduce_scatter, IMB's convention: rank r
    // keeps count / P elements, the first count % P one more), or --size per rank (allgatherv,
    // as allgather's block). Without them the model would see an empty vector.
    std::vector<int> rcounts, rdispls;
    if (hier::factsOf(c.args.kind).vectors & hier::kRecvCounts) {
        const bool split = hier::factsOf(c.args.kind).modelBytes == hier::ModelBytes::SumOfRecvCounts;
        const size_t P = static_cast<size_t>(o.processes);
        for (size_t r = 0, at = 0; r < P; ++r) {
            rcounts.push_back(static_cast<int>(split ? count / P + (r < count % P ? 1 : 0) : count));
            rdispls.push_back(static_cast<int>(at));
            at += static_cast<size_t>(rcounts.back());
        }
        c.args.rcounts = rcounts.data();
        c.args.rdispls = rdispls.data();
    }
    c.hierarchy = d.hierarchy.isTrivial() ? nullptr : &d.hierarchy;
    c.stageLinks = c.hierarchy ? &links : nullptr;
    c.segmentBytes = o.segmentBytes;
    c.switchEntries = o.switchEntries;
    c.switchDegree = o.switchDegree;
    if (o.algorithm != "auto") {
        const hier::AlgorithmInfo* a = hier::algorithmByName(c.args.kind, o.algorithm);
        if (!a) throw std::invalid_argument("no algorithm '" + o.algorithm + "' for " + o.coll + " (" +
                                            hier::algorithmNames(c.args.kind) + ")");
        c.algorithm = hier::algorithmValue(*a);
        std::string why;
        if (!hier::forcedAlgorithm(c, &why))
            std::cout << "coll_hieragg_" << o.coll << "_algorithm=" << o.algorithm << " would be refused: it " << why
                      << "\n";
    }
    std::cout << "split=" << d.applied.text() << ": " << d.hierarchy.describe(d.levelNames) << "\n";
    if (!hier::modelDriven(c.args.kind)) {
        std::cout << o.coll << " is not chosen by the model (registry rows: " << hier::algorithmNames(c.args.kind)
                  << ")\n";
        return 0;
    }
    const hier::Plan plan = hier::choosePlan(c, params);
    std::cout << o.coll << " " << o.bytes << " B on " << o.processes << " ranks: pred=" << plan.predUs << " us\n"
              << plan.describe() << "\n";
    if (!plan.note.empty()) std::cout << plan.note << "\n";
    // The composite tree of a rooted one-to-all / all-to-one collective: each rank's parent in
    // the first stage where it is not the space's root (Levels), or the one tree.
    if (plan.mode == hier::Plan::Mode::Levels) {
        std::cout << "parent of each rank:";
        for (int r = 0; r < o.processes; ++r) {
            int parent = -1;
            for (int level = 0; level <= d.hierarchy.levels() && parent < 0; ++level) {
                hier::SpaceGroup sg = hier::spaceGroup(d.hierarchy, level, r, o.root);
                if (sg.group.me < 0) break;
                if (sg.group.size() <= 1 || sg.group.me == sg.rootIdx) continue;
                const MemberTree t = plan.stages[level].shape.build(sg.group.size(), sg.rootIdx);
                parent = sg.group.ranks[t.parent[sg.group.me]];
            }
            std::cout << " " << r << "<-" << parent;
        }
        std::cout << "\n";
    } else if (plan.mode == hier::Plan::Mode::Whole && plan.stages[0].algo &&
               plan.stages[0].algo->tree) {
        std::string name;
        const MemberTree t = hier::wholePlanTree(c, plan.stages[0], o.root, &name);
        std::cout << name << ", parent of each rank:";
        for (int r = 0; r < o.processes; ++r) std::cout << " " << r << "<-" << t.parent[r];
        std::cout << "\n";
    }
    return 0;
}

}  // namespace hieragg::tools
