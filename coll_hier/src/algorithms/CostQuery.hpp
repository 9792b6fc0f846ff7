// What an algorithm unit's cost function (AlgorithmInfo::cost) sees of a call, and what it
// returns. The chooser (Selection.cpp) fills one query per call and, for Stage rows, per
// stage of the plan; the function prices its row on it and says why.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Selection.hpp"
#include "model/StageLoad.hpp"

namespace hieragg::hier {

struct CostQuery {
    const CollCall& call;
    const CostParams& params;
    // Link class of every stage of the decomposition (index = level, back() = the leaders);
    // {kLinkNode} when the call is not decomposed.
    const std::vector<int>& links;
    const model::Load& load;  // the tree collectives' load (bcast, reduce, ... shapes)
    double bytes;             // modelBytes(call)
    // The stage a Stage row is priced on: its largest space and the link its messages cross.
    int members = 0;
    const LinkCost* link = nullptr;
    // Why a row that could serve the call is not available (a type II tree that does not
    // fit); the plan's note.
    std::string* note = nullptr;
};

struct Estimate {
    StageChoice choice;  // choice.algo == nullptr: the row does not serve this call
    // The row is preferred wherever it serves (coll_hieragg_offload=ofi): it wins its stage
    // and the plan keeps it against every other composition.
    bool preferred = false;
};

// A row's estimate of one stage of q.members ranks (Stage rows), nothing priced yet.
inline Estimate stageEstimate(const AlgorithmInfo& row, const CostQuery& q) {
    Estimate e;
    e.choice.algo = &row;
    e.choice.members = q.members;
    return e;
}

// A row's choice over the whole communicator, its messages on the outermost link of
// `links`, nothing priced yet.
inline StageChoice callChoice(const AlgorithmInfo& row, const CollCall& c, const std::vector<int>& links) {
    StageChoice s;
    s.algo = &row;
    s.members = c.size;
    s.link = links.back();
    return s;
}
// The same as an estimate (Alone rows).
inline Estimate callEstimate(const AlgorithmInfo& row, const CostQuery& q) {
    Estimate e;
    e.choice = callChoice(row, q.call, q.links);
    return e;
}

// Estimate e with its prediction and why.
inline Estimate priced(Estimate e, double us, std::string why) {
    e.choice.predUs = us;
    e.choice.why = std::move(why);
    return e;
}

// The same with a tie-break (PredictedCost).
inline Estimate priced(Estimate e, const PredictedCost& cost, std::string why) {
    e.choice.setCost(cost);
    e.choice.why = std::move(why);
    return e;
}

// An estimate that is only the model's choice.
inline Estimate estimateOf(const StageChoice& choice) {
    Estimate e;
    e.choice = choice;
    return e;
}

// A row that serves `q` and whose time is not modelled (the v-variants, the neighborhood
// collectives): the first such row of its stage runs.
inline Estimate unpriced(const AlgorithmInfo& row, const CostQuery& q) { return stageEstimate(row, q); }

}  // namespace hieragg::hier
