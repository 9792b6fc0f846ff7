// What a communicator's selection reads besides the call (docs/selection.md): the link
// class of each stage of its hierarchy, the cost model's parameters (the process's
// coll_hieragg_cost_*, with the node and network links' measurements once calibrated: the same
// on every rank, so every rank picks the same plans), the calibration's state while it
// runs, and the rules file's determinations (SPEC 3.4), evaluated once after the
// decomposition (null with no usable rules file).
#pragma once
#include <array>
#include <memory>
#include <vector>

#include "hieragg/hier/RulesFile.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg {

struct LinkCalibrationState;  // LinkCalibrationStage.cpp

struct SelectionState {
    std::vector<int> stageLinks;
    hier::CostParams costs;
    // Per link class: costs holds a measurement (this communicator's, or one carried from
    // an earlier communicator), LinkCalibrationStage.cpp.
    std::array<bool, hier::kLinkClassCount> measured{};
    // The members' agreed reduction rate [ns/B] applied as gamma (ReduceRateProbe.hpp); 0: none.
    double reduceRateNsPerByte = 0;
    std::shared_ptr<LinkCalibrationState> calibration;  // while that stage runs
    bool rulesEvaluated = false;
    std::unique_ptr<hier::Determinations> determinations;
};

}  // namespace hieragg
