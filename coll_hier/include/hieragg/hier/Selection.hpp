// Selection from the cost model (SPEC 3.2, 3.4, 3.5): for one call signature,
// predict every applicable registry entry's time at every stage of the
// decomposition with that stage's link parameters, and keep the fastest: the
// algorithm, the radix k (k* and the [k_min, k_max] band), the chain chunk and
// level-by-level composition vs one hierarchical tree. A forced algorithm
// (coll_hieragg_<coll>_algorithm) that passes its needs replaces the model's
// choice wherever it may serve. The runtime caches Plans per communicator and
// size class, so a call evaluates the model at most once per signature class.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/algorithms/MemberTree.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"

namespace hieragg::hier {

// What the chooser orders candidates by: the predicted time, then, only between equal
// predictions, a secondary criterion (tieUs), then, only between equal predictions and equal
// secondaries, a third (fanUs). Lexicographic, so a later key can never outweigh any
// difference of an earlier one, however large the costs.
struct PredictedCost {
    double us = 0.0;
    double tieUs = 0.0;
    double fanUs = 0.0;
};
inline bool operator<(const PredictedCost& a, const PredictedCost& b) {
    if (a.us != b.us) return a.us < b.us;
    if (a.tieUs != b.tieUs) return a.tieUs < b.tieUs;
    return a.fanUs < b.fanUs;
}

struct StageChoice {
    const AlgorithmInfo* algo = nullptr;
    TreeShape shape;           // kTraitTree rows (and whole trees): shape and radix
    size_t segmentBytes = 0;   // pipeline segment (chain chunk); 0 = whole message
    int members = 0;           // largest space of this stage
    int link = kLinkNode;      // LinkClass the stage's messages cross
    double predUs = 0.0;
    // Orders equal predictions only (PredictedCost): on a crowded node, the row's share of a
    // back-to-back stream (model/SharedCoresModel.hpp, loneCrowdedCall); 0 elsewhere.
    double tieUs = 0.0;
    // Orders equal predictions with equal tieUs only: on a crowded node, the most messages one
    // rank posts one after another in one direction, theta each (largestFanUs); 0 elsewhere.
    double fanUs = 0.0;
    std::string why;
    PredictedCost cost() const { return {predUs, tieUs, fanUs}; }
    void setCost(const PredictedCost& c) { predUs = c.us, tieUs = c.tieUs, fanUs = c.fanUs; }
};

struct Plan {
    enum class Mode { Flat, Levels, Whole };
    Mode mode = Mode::Flat;
    // Flat, Whole: one stage. Levels: levels()+1 stages, index = level (levels() = leaders).
    std::vector<StageChoice> stages;
    double predUs = 0.0;
    double tieUs = 0.0;  // its stages' StageChoice::tieUs, summed as predUs is
    double fanUs = 0.0;  // its stages' StageChoice::fanUs, the same
    PredictedCost cost() const { return {predUs, tieUs, fanUs}; }
    // A one-stage plan's cost is its stage's (setCost); a plan by levels sums its stages' (addCost).
    void setCost(const PredictedCost& c) { predUs = c.us, tieUs = c.tieUs, fanUs = c.fanUs; }
    void addCost(const PredictedCost& c) { predUs += c.us, tieUs += c.tieUs, fanUs += c.fanUs; }
    // Why a candidate the call could use was not available (e.g. no type II switch tree
    // fits the entry budget); the runtime prints it once at coll_hieragg_verbose=1.
    std::string note;
    // One line per stage: "L0 (node, 4 ranks): knomial k=3 seg=0 pred=1.2 us: k*=..."
    std::string describe() const;
};

// The model's plan for `c` (c.algorithm honoured when its needs hold).
Plan choosePlan(const CollCall& c, const CostParams& params);
// c.plan when the runtime attached one, else choosePlan with c.costs (or the defaults).
std::shared_ptr<const Plan> planOf(const CollCall& c);
// True for the collectives whose recipes follow a Plan (the tree-shaped ones).
bool modelDriven(hieragg_coll_kind kind);
// The size class a Plan is cached under: the bucket of the message's bytes (powers of two).
int sizeClass(size_t bytes);
// Bytes that drive the model for this call (per-rank message, block, or vector).
size_t modelBytes(const CollCall& c);

}  // namespace hieragg::hier
