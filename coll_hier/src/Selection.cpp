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
// StageChoice::tieUs, then their StageChoice::fanUs (PredictedCost). Ties keep the earlier candidate: flat before level by level before
// whole trees before Alone rows, and in list order (algorithms/AlgorithmList.cpp) among
// rows of one kind. With measured parameters (CostParams::closeFraction > 0) that order is
// also the preference among close predictions: a candidate earlier than the cheapest is
// kept when it is within the calibration's noise of it AND its margin over the cheapest is
// no larger than that noise can move it (the latency terms of every link raised or lowered
// by the band: the noise corners). Two jobs whose measurements differ by their noise then
// choose the same row (hysteresis), and its why says so; a margin the noise cannot undo
// (the same bytes in more rounds) is no tie: the cheaper runs.
#include "hieragg/hier/Selection.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "algorithms/CostQuery.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/LinkCalibration.hpp"
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

// The calibration's noise as parameter sets: every link's latency terms (alpha, theta,
// burst, exchange round, rendezvous) raised and lowered by the band, per-byte terms kept.
// Scaling latency and bandwidth alike would scale every prediction alike; only their ratio
// can reorder candidates. Empty without a band (nothing measured).
std::vector<CostParams> noiseCorners(const CostParams& p) {
    std::vector<CostParams> out;
    if (!(p.closeFraction > 0)) return out;
    auto scaled = [](LinkCost& l, double f) {
        l.alpha_us *= f;
        l.theta_us *= f;
        l.rendezvous_us *= f;
        if (l.burst_us > 0) l.burst_us *= f;        // < 0: theta's, scaled with it
        if (l.exchange_us > 0) l.exchange_us *= f;  // < 0: alpha + theta
    };
    for (const double f : {1 + p.closeFraction, 1 / (1 + p.closeFraction)}) {
        CostParams c = p;
        c.closeFraction = 0;  // a corner prices; it does not choose among close ones
        for (LinkCost& l : c.link) scaled(l, f);
        scaled(c.offload, f);
        out.push_back(c);
    }
    return out;
}

// The query `like` asks under other parameters (a noise corner): its own stage load, the
// same call, links, bytes and stage size.
struct QueryAt {
    Load load;
    CostQuery q;
    std::string note;  // what a corner's rows note is not the plan's
    QueryAt(const CostQuery& like, const CostParams& p)
        : load(stageLoadOf(like.call, p)), q{like.call, p, like.links, load, like.bytes} {
        q.members = like.members;
        q.note = &note;
    }
    QueryAt(const QueryAt&) = delete;
    QueryAt& operator=(const QueryAt&) = delete;
};

// The first cheapest of predictions in the chooser's fixed order (PredictedCost's order;
// ties keep the earlier).
size_t cheapestIndex(const std::vector<PredictedCost>& preds) {
    size_t best = 0;
    for (size_t i = 1; i < preds.size(); ++i)
        if (preds[i] < preds[best]) best = i;
    return best;
}

// The candidate the chooser keeps: the cheapest, or the earliest within p.closeFraction
// (relative) of it whose margin over it the noise can undo: a margin no larger than the
// noise corners move it (`price(corner)` prices the same candidates, in order, at one
// corner; asked only when a candidate is in the band), or below the smallest noise a
// calibration is credited with (kMinCloseFraction: rows the model cannot tell apart). A
// margin that moves that much may change sign inside the noise (two rows crossing); one
// that holds at both corners is more than the noise (the same bytes in more rounds) and
// the cheaper runs. Predictions only: the tie-break does not widen the band, and an earlier
// candidate whose prediction equals the cheapest's is not kept by it: equal predictions are
// the same formula of the same measurements in every job (no noise between them), so the
// secondary keys that ordered them (cheapestIndex) decide.
template <class Price>
size_t keptIndex(const std::vector<PredictedCost>& preds, const CostParams& p, Price price) {
    const size_t best = cheapestIndex(preds);
    std::vector<std::vector<double>> corners;
    for (size_t i = 0; i < best; ++i) {
        if (preds[i].us == preds[best].us) continue;  // lost on tieUs or fanUs
        if (!(preds[i].us <= preds[best].us * (1 + p.closeFraction))) continue;
        const double margin = preds[i].us - preds[best].us;
        if (margin <= preds[best].us * kMinCloseFraction) return i;
        if (corners.empty())
            for (const CostParams& corner : noiseCorners(p)) corners.push_back(price(corner));
        for (const std::vector<double>& c : corners)
            if (margin <= std::abs((c[i] - c[best]) - margin)) return i;
    }
    return best;
}

// The why of a candidate kept over a cheaper one by keptIndex's band.
std::string keptOver(const std::string& cheaper, double cheaperUs, double band) {
    return "; kept over " + cheaper + " (" + fmt("%.2f", cheaperUs) + " us): within the calibration's noise (" +
           fmt("%.0f", band * 100) + "%), a margin that noise can undo, the earlier in list order";
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
    std::vector<const AlgorithmInfo*> rows;  // options' rows
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
        rows.push_back(a);
    }
    if (!options.empty()) {
        std::vector<PredictedCost> preds;
        for (const StageChoice& o : options) preds.push_back(o.cost());
        const size_t cheapest = cheapestIndex(preds), kept = keptIndex(preds, p, [&](const CostParams& cp) {
            QueryAt at(q, cp);
            at.q.link = &cp.link[link];
            std::vector<double> v;
            for (const AlgorithmInfo* a : rows) v.push_back(a->cost(*a, at.q).choice.predUs);
            return v;
        });
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

// The plan level by level: each stage's kept Stage row (the forced one where it serves).
TreePlan levelsPlan(const CollCall& c, const CostParams& p, const AlgorithmInfo* forced, CostQuery q) {
    const Hierarchy& h = *c.hierarchy;
    const std::vector<int> sizes = stageSizes(h);
    TreePlan out;
    out.plan.mode = Plan::Mode::Levels;
    for (int level = 0; level <= h.levels(); ++level) {
        const unsigned where = level == h.levels() ? kServesLeaders : kServesSubspace;
        q.members = sizes[level];
        const StageBest b = bestStage(c, forced, where, q, q.links[level], p);
        out.plan.stages.push_back(b.s);
        out.plan.addCost(b.s.cost());
        out.preferred = b.preferred;  // the leaders' stage is the last
    }
    return out;
}

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
        f.setCost(f.stages[0].cost());
        return out;
    }
    const TreePlan byLevel = levelsPlan(c, p, forced, q);
    Plan levels = byLevel.plan;
    const bool preferred = byLevel.preferred;
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
        w.setCost(w.stages[0].cost());
        w.note = note;
        out.plan = w;
        return out;
    }
    std::vector<Plan> options = {levels};
    std::vector<const AlgorithmInfo*> wholeRows;  // options[1..]'s rows
    if (!forced && !preferred) {
        for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
            if (a->pricing != Pricing::WholeTree || !unmetNeed(*a, c).empty()) continue;
            Plan w;
            w.mode = Plan::Mode::Whole;
            w.stages.push_back(whole(*a));
            w.setCost(w.stages[0].cost());
            if (w.stages[0].algo) options.push_back(w), wholeRows.push_back(a);
        }
    }
    std::vector<PredictedCost> preds;
    for (const Plan& o : options) preds.push_back(o.cost());
    const size_t cheapest = cheapestIndex(preds), kept = keptIndex(preds, p, [&](const CostParams& cp) {
        QueryAt at(q, cp);
        std::vector<double> v = {levelsPlan(c, cp, forced, at.q).plan.predUs};
        at.q.members = c.size;
        for (const AlgorithmInfo* a : wholeRows) v.push_back(a->cost(*a, at.q).choice.predUs);
        return v;
    });
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
        plan.setCost(alone[0].choice.cost());
        plan.stages[0].why = "forced; " + plan.stages[0].why;
        return plan;
    }
    // The trees first, then the Alone rows in their order.
    std::vector<PredictedCost> preds = {{treeUs, tree.plan.tieUs, tree.plan.fanUs}};
    for (const Estimate& e : alone) preds.push_back(e.choice.cost());
    const size_t cheapest = cheapestIndex(preds), kept = keptIndex(preds, p, [&](const CostParams& cp) {
        QueryAt at(q, cp);
        std::vector<double> v = {
            trees ? withScatterAfterReduceUs(treePlan(c, cp, forced, at.q).plan.predUs, c, cp, links, q.bytes) : kInf};
        for (const Estimate& e : alone) v.push_back(e.choice.algo->cost(*e.choice.algo, at.q).choice.predUs);
        return v;
    });
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
    plan.setCost(best.choice.cost());
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
