// The chooser (SPEC 3.2, 3.4, 3.5; Selection.hpp). It knows no algorithm: every registry row
// of the call's collective brings its own cost function (its unit, coll_hier/src/algorithms/),
// and the row's Pricing says how the chooser composes it:
//   Stage      priced per stage: the whole communicator flat, or each level's spaces and the
//              leaders (the plan level by level); the cheapest applicable row of each stage;
//   WholeTree  one tree over every level, against the plan level by level;
//   Alone      the whole call by itself, against the tree plan and the other Alone rows;
//   FlatMarker forcing it runs the best flat plan; ForcedOnly: never chosen by the model.
// A forced row (coll_hieragg_<coll>_algorithm) whose needs hold replaces the model's choice
// wherever it serves. Candidates are ordered by prediction, equal predictions by their
// StageChoice::tieUs (PredictedCost). Ties keep the earlier candidate: flat before level by level before
// whole trees before Alone rows, and in list order (algorithms/AlgorithmList.cpp) among
// rows of one kind. With measured parameters (CostParams::closeFraction > 0) that order is
// also the preference among close predictions: the earliest candidate within the
// calibration's noise of the cheapest is kept (hysteresis: two jobs whose measurements
// differ by their noise choose the same row), and its why says so.
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

// The candidate the chooser keeps among predictions in its fixed order: the first minimum
// (PredictedCost's order; ties keep the earlier), or the earliest whose prediction is
// within `band` (relative) of the minimum's.
size_t keptIndex(const std::vector<PredictedCost>& preds, double band) {
    size_t best = 0;
    for (size_t i = 1; i < preds.size(); ++i)
        if (preds[i] < preds[best]) best = i;
    if (band > 0)
        for (size_t i = 0; i < best; ++i)
            if (preds[i].us <= preds[best].us * (1 + band)) return i;
    return best;
}

// The why of a candidate kept over a cheaper one by keptIndex's band.
std::string keptOver(const std::string& cheaper, double cheaperUs, double band) {
    return "; kept over " + cheaper + " (" + fmt("%.2f", cheaperUs) + " us): within the calibration's noise (" +
           fmt("%.0f", band * 100) + "%), the earlier in list order";
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
    std::vector<StageChoice> options;
    for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
        if (a->pricing != Pricing::Stage || !serves(*a, where) || !unmetNeed(*a, c).empty()) continue;
        if (forced && a != forced && serves(*forced, where) && forced->pricing == Pricing::Stage) continue;
        const Estimate e = a->cost(*a, q);
        if (e.preferred) {
            best = {e.choice, true};
            options.clear();
            break;
        }
        options.push_back(e.choice);
    }
    if (!options.empty()) {
        std::vector<PredictedCost> preds;
        for (const StageChoice& o : options) preds.push_back(o.cost());
        const size_t cheapest = keptIndex(preds, 0), kept = keptIndex(preds, p.closeFraction);
        best.s = options[kept];
        if (kept != cheapest && options[cheapest].algo)
            best.s.why += keptOver(options[cheapest].algo->name, preds[cheapest].us, p.closeFraction);
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
        f.tieUs = f.stages[0].tieUs;
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
        levels.tieUs += b.s.tieUs;
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
        w.tieUs = w.stages[0].tieUs;
        w.note = note;
        out.plan = w;
        return out;
    }
    std::vector<Plan> options = {levels};
    if (!forced && !preferred) {
        for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
            if (a->pricing != Pricing::WholeTree || !unmetNeed(*a, c).empty()) continue;
            Plan w;
            w.mode = Plan::Mode::Whole;
            w.stages.push_back(whole(*a));
            w.predUs = w.stages[0].predUs;
            w.tieUs = w.stages[0].tieUs;
            if (w.stages[0].algo) options.push_back(w);
        }
    }
    std::vector<PredictedCost> preds;
    for (const Plan& o : options) preds.push_back(o.cost());
    const size_t cheapest = keptIndex(preds, 0), kept = keptIndex(preds, p.closeFraction);
    Plan best = options[kept];
    if (best.mode == Plan::Mode::Whole)
        best.stages[0].why += "; beats level by level (" + fmt("%.2f", levels.predUs) + " us)";
    if (kept != cheapest) {
        const std::string what = options[cheapest].mode == Plan::Mode::Whole && options[cheapest].stages[0].algo
                                     ? std::string(options[cheapest].stages[0].algo->name)
                                     : "level by level";
        best.stages.back().why += keptOver(what, preds[cheapest].us, p.closeFraction);
    }
    best.note = note;
    out.plan = best;
    out.preferred = best.mode == Plan::Mode::Levels && preferred;
    return out;
}

// The Alone rows' estimates, flat rows first (ties keep the earlier).
std::vector<Estimate> aloneEstimates(const CollCall& c, const AlgorithmInfo* forced, const CostQuery& q) {
    std::vector<Estimate> out;
    for (const bool flat : {true, false})
        for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
            if (a->pricing != Pricing::Alone || serves(*a, kServesFlat) != flat) continue;
            if ((forced && a != forced) || !unmetNeed(*a, c).empty()) continue;
            Estimate e = a->cost(*a, q);
            if (e.choice.algo) out.push_back(e);
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
    if (alone.empty()) return tree.plan;
    // The trees as the Alone rows meet them: reduce_scatter's with the scatter after the reduce.
    const double treeUs = trees ? withScatterAfterReduceUs(tree.plan.predUs, c, p, links, q.bytes) : kInf;
    Plan plan;
    if (forced) {  // the forced row is the only one
        plan.mode = modeOf(*alone[0].choice.algo);
        plan.stages.push_back(alone[0].choice);
        plan.predUs = alone[0].choice.predUs;
        plan.tieUs = alone[0].choice.tieUs;
        plan.stages[0].why = "forced; " + plan.stages[0].why;
        return plan;
    }
    // The trees first, then the Alone rows in their order.
    std::vector<PredictedCost> preds = {{treeUs, tree.plan.tieUs}};
    for (const Estimate& e : alone) preds.push_back(e.choice.cost());
    const size_t cheapest = keptIndex(preds, 0), kept = keptIndex(preds, p.closeFraction);
    const std::string cheaperName =
        cheapest == 0 ? std::string("the trees") : std::string(alone[cheapest - 1].choice.algo->name);
    if (kept == 0) {
        if (cheapest != 0 && !tree.plan.stages.empty())
            tree.plan.stages.back().why += keptOver(cheaperName, preds[cheapest].us, p.closeFraction);
        return tree.plan;
    }
    const Estimate& best = alone[kept - 1];
    plan.mode = modeOf(*best.choice.algo);
    plan.stages.push_back(best.choice);
    plan.predUs = best.choice.predUs;
    plan.tieUs = best.choice.tieUs;
    if (trees) {
        plan.stages[0].why += "; beats the trees (" + fmt("%.2f", treeUs) + " us)";
        plan.note = tree.plan.note;
    }
    if (kept != cheapest) plan.stages[0].why += keptOver(cheaperName, preds[cheapest].us, p.closeFraction);
    return plan;
}

std::shared_ptr<const Plan> planOf(const CollCall& c) {
    if (c.plan) return c.plan;
    static const CostParams defaults = CostParams::defaults();
    return std::make_shared<const Plan>(choosePlan(c, c.costs ? *c.costs : defaults));
}

}  // namespace hieragg::hier
