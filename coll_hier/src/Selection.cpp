// The chooser (SPEC 3.2, 3.4, 3.5; Selection.hpp). It knows no algorithm: every registry row
// of the call's collective brings its own cost function (its unit, coll_hier/src/algorithms/),
// and the row's Pricing says how the chooser composes it:
//   Stage      priced per stage: the whole communicator flat, or each level's spaces and the
//              leaders (the plan level by level); the cheapest applicable row of each stage;
//   WholeTree  one tree over every level, against the plan level by level;
//   Alone      the whole call by itself, against the tree plan and the other Alone rows;
//   FlatMarker forcing it runs the best flat plan; ForcedOnly: never chosen by the model.
// A forced row (coll_hieragg_<coll>_algorithm) whose needs hold replaces the model's choice
// wherever it serves. Ties keep the earlier candidate: flat before level by level before
// whole trees before Alone rows, and in list order (algorithms/AlgorithmList.cpp) among
// rows of one kind.
#include "hieragg/hier/Selection.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "algorithms/CostQuery.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/WholeTree.hpp"
#include "model/ScatterAfterReduce.hpp"
#include "model/StageLoad.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier {

using namespace model;

namespace {

bool serves(const AlgorithmInfo& a, unsigned where) { return (a.serves & where) != 0; }

Plan::Mode modeOf(const AlgorithmInfo& a) { return a.serves == kServesWhole ? Plan::Mode::Whole : Plan::Mode::Flat; }

// Largest space of each stage (index = level).
std::vector<int> stageSizes(const Hierarchy& h) {
    std::vector<int> out(h.levels() + 1, 1);
    for (int l = 0; l < h.levels(); ++l)
        for (int g = 0; g < h.groupCount(l); ++g) {
            out[l] = std::max(out[l], l == 0 ? static_cast<int>(h.groupMembers(0, g).size()) : 0);
        }
    // Level l >= 1 spaces: leaders of level-(l-1) groups inside one level-l group.
    for (int l = 1; l < h.levels(); ++l) {
        std::vector<int> count(h.groupCount(l), 0);
        for (int g = 0; g < h.groupCount(l - 1); ++g) ++count[h.groupOf(l, h.groupMembers(l - 1, g).front())];
        out[l] = *std::max_element(count.begin(), count.end());
    }
    out[h.levels()] = h.groupCount(h.levels() - 1);
    return out;
}

struct StageBest {
    StageChoice s;
    bool preferred = false;  // a preferred row (Estimate::preferred) won the stage
};

// Best applicable Stage row for one stage (`where`, q.members, link `link`); `forced` wins
// where it serves.
StageBest bestStage(const CollCall& c, const AlgorithmInfo* forced, unsigned where, CostQuery q, int link,
                    const CostParams& p) {
    q.link = &p.link[link];
    StageBest best;
    best.s.predUs = kInf;
    for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
        if (a->pricing != Pricing::Stage || !serves(*a, where) || !unmetNeed(*a, c).empty()) continue;
        if (forced && a != forced && serves(*forced, where) && forced->pricing == Pricing::Stage) continue;
        const Estimate e = a->cost(*a, q);
        if (e.preferred) {
            best = {e.choice, true};
            break;
        }
        if (best.s.algo == nullptr || e.choice.predUs < best.s.predUs) best.s = e.choice;
    }
    if (forced && best.s.algo == forced) best.s.why = "forced; " + best.s.why;
    best.s.link = link;
    best.s.members = q.members;
    if (best.s.algo == nullptr) best.s.predUs = 0;
    return best;
}

struct TreePlan {
    Plan plan;
    bool preferred = false;  // level by level, its leader stage a preferred row
};

// The trees: the Stage rows flat or level by level, against the WholeTree rows.
TreePlan treePlan(const CollCall& c, const CostParams& p, const AlgorithmInfo* forced, CostQuery q) {
    TreePlan out;
    const bool hier = isDecomposed(c);
    const bool forcedFlat = forced && forced->pricing == Pricing::FlatMarker;
    // Non-commutative reductions over non-contiguous groups must run flat (rank order).
    const AlgorithmInfo contiguity{c.args.kind, "", 0, kNeedsContiguousGroups, 0, 0,
                                   TreeShape::Kind::Knomial, ""};
    const bool orderBlocksHier =
        reduces(q.load) && !c.args.op_commutative && hier && !unmetNeed(contiguity, c).empty();
    if (!hier || forcedFlat || orderBlocksHier || c.inter) {
        Plan& f = out.plan;
        f.mode = Plan::Mode::Flat;
        q.members = c.size;
        f.stages.push_back(bestStage(c, forced, kServesFlat, q, q.links.back(), p).s);
        f.predUs = f.stages[0].predUs;
        return out;
    }
    const Hierarchy& h = *c.hierarchy;
    const std::vector<int> sizes = stageSizes(h);
    Plan levels;
    levels.mode = Plan::Mode::Levels;
    bool preferred = false;
    for (int level = 0; level <= h.levels(); ++level) {
        const unsigned where = level == h.levels() ? kServesLeaders : kServesSubspace;
        q.members = sizes[level];
        const StageBest b = bestStage(c, forced, where, q, q.links[level], p);
        levels.stages.push_back(b.s);
        levels.predUs += b.s.predUs;
        preferred = b.preferred;  // the leaders' stage is the last
    }
    q.members = c.size;
    q.link = nullptr;
    std::string note;
    q.note = &note;
    auto whole = [&](const AlgorithmInfo& a) { return a.cost(a, q).choice; };
    if (forced && forced->serves == kServesWhole) {
        Plan w;
        w.mode = Plan::Mode::Whole;
        w.stages.push_back(whole(*forced));
        // A forced whole tree that is not available (a type II tree that does not fit) falls
        // back to the collective's first whole tree, the type I tree (SPEC 3.2).
        if (!w.stages[0].algo)
            for (const AlgorithmInfo* a : algorithmsOf(c.args.kind))
                if (a->pricing == Pricing::WholeTree && a != forced && unmetNeed(*a, c).empty()) {
                    w.stages[0] = whole(*a);
                    break;
                }
        if (!w.stages[0].algo) {
            levels.note = note;
            out.plan = levels;
            return out;
        }
        w.stages[0].why = (w.stages[0].algo == forced ? "forced; " : "forced " + std::string(forced->name) +
                                                                         " fell back to type I; ") +
                          w.stages[0].why;
        w.predUs = w.stages[0].predUs;
        w.note = note;
        out.plan = w;
        return out;
    }
    Plan best = levels;
    if (!forced && !preferred) {
        for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
            if (a->pricing != Pricing::WholeTree || !unmetNeed(*a, c).empty()) continue;
            Plan w;
            w.mode = Plan::Mode::Whole;
            w.stages.push_back(whole(*a));
            w.predUs = w.stages[0].predUs;
            if (w.stages[0].algo && w.predUs < best.predUs) best = w;
        }
    }
    if (best.mode == Plan::Mode::Whole)
        best.stages[0].why += "; beats level by level (" + fmt("%.2f", levels.predUs) + " us)";
    best.note = note;
    out.plan = best;
    out.preferred = best.mode == Plan::Mode::Levels && preferred;
    return out;
}

// The Alone rows' estimates, flat rows first (ties keep the earlier), with the stream rule of
// Estimate::stream applied.
std::vector<Estimate> aloneEstimates(const CollCall& c, const AlgorithmInfo* forced, const CostQuery& q) {
    std::vector<Estimate> out;
    for (const bool flat : {true, false})
        for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
            if (a->pricing != Pricing::Alone || serves(*a, kServesFlat) != flat) continue;
            if ((forced && a != forced) || !unmetNeed(*a, c).empty()) continue;
            Estimate e = a->cost(*a, q);
            if (e.choice.algo) out.push_back(e);
        }
    double loneMin = kInf;
    for (const Estimate& e : out)
        if (e.streamPriced) loneMin = std::min(loneMin, e.choice.predUs);
    for (Estimate& e : out) {
        if (!e.streamPriced) continue;
        const double lone = e.choice.predUs;
        const bool overlaps = e.stream >= 0 && (e.alwaysStreams || lone <= 2 * loneMin);
        e.choice.predUs = overlaps ? std::min(lone, e.stream) : lone;
        e.choice.why += overlaps ? "; back-to-back calls overlap (lone call " + fmt("%.2f", lone) + " us)"
                                 : "; each call waits for the last";
    }
    return out;
}

}  // namespace

int sizeClass(size_t bytes) {
    int c = 0;
    while (bytes > 1) bytes >>= 1, ++c;
    return c;
}

Plan choosePlan(const CollCall& c, const CostParams& p) {
    const AlgorithmInfo* forced = forcedAlgorithm(c);
    const std::vector<int> links = isDecomposed(c) ? linksOf(c) : std::vector<int>{kLinkNode};
    const Load ld = stageLoadOf(c, p);
    const CostQuery q{c, p, links, ld, static_cast<double>(modelBytes(c))};
    const auto& rows = algorithmsOf(c.args.kind);
    const bool trees =
        std::any_of(rows.begin(), rows.end(), [](const AlgorithmInfo* a) { return a->pricing == Pricing::Stage; });
    TreePlan tree;
    if (trees) {
        tree = treePlan(c, p, forced, q);
        // A forced tree row, or a preferred leader stage (coll_hieragg_offload=ofi): the trees.
        if ((forced && forced->pricing != Pricing::Alone) || tree.preferred) return tree.plan;
    }
    const std::vector<Estimate> alone = aloneEstimates(c, forced, q);
    const Estimate* best = nullptr;
    for (const Estimate& e : alone)
        if (!best || e.choice.predUs < best->choice.predUs) best = &e;
    // The trees as the Alone rows meet them: reduce_scatter's with the scatter after the reduce.
    const double treeUs = trees ? withScatterAfterReduceUs(tree.plan.predUs, c, p, links, q.bytes) : kInf;
    if (!best || (!forced && !(best->choice.predUs < treeUs))) return tree.plan;
    Plan plan;
    plan.mode = modeOf(*best->choice.algo);
    plan.stages.push_back(best->choice);
    plan.predUs = best->choice.predUs;
    if (forced) {
        plan.stages[0].why = "forced; " + plan.stages[0].why;
        return plan;
    }
    if (trees) {
        plan.stages[0].why += "; beats the trees (" + fmt("%.2f", treeUs) + " us)";
        plan.note = tree.plan.note;
    }
    return plan;
}

std::shared_ptr<const Plan> planOf(const CollCall& c) {
    if (c.plan) return c.plan;
    static const CostParams defaults = CostParams::defaults();
    return std::make_shared<const Plan>(choosePlan(c, c.costs ? *c.costs : defaults));
}

}  // namespace hieragg::hier
