// Automatic calibration of the node and network links at communicator setup
// (docs/selection.md, "Automatic calibration"): a stage of the staged nonblocking setup,
// after the identity exchange and before the offload setup. First the node link (ranks of
// one host in disjoint pairs), then the network (the leaders of a network stage): both ends
// of each pair time a few ping-pongs (Tasks on their own tag block, progressed with
// everything else), then every rank exchanges the results and applies the same agreed
// values to its communicator's cost parameters (SelectionState::costs). Calls wait in
// c.decomp.pending meanwhile.
#pragma once
#include <vector>

#include "CommState.hpp"
#include "hieragg/hier/LinkCalibration.hpp"

namespace hieragg {

// What the identity exchange told every rank alike: whether the communicator spans more
// than one host, each rank's host (an index, equal for ranks of one host; empty: no
// identities exchanged), and what each rank's process measured before per link class
// (invalid: nothing yet).
struct CalibrationInputs {
    bool spansHosts = false;
    std::vector<int> hostOf;
    std::vector<hier::MeasuredLink> carried[hier::kLinkClassCount];
};

// Decides (the same on every rank) and starts the stage. Returns false when there is
// nothing to measure (c.selection.costs then already holds what applies); true when the stage runs:
// it calls continueSetupAfterCalibration(c), or finishDecomposition(c, error), when done.
bool beginLinkCalibration(hieragg_comm& c, const CalibrationInputs& in);

}  // namespace hieragg
