// The model's gamma (LinkCost::gamma_us_per_byte: what combining one byte of an arrival costs
// the receiving rank), measured at setup instead of taken from the defaults: each process
// times, once, a local reduction of a few sizes (doubles summed into doubles, no messages, well
// under a millisecond), each rank's rate travels in the identity exchange, and every rank of a
// communicator applies the same value, the median of its members' rates, to every link class
// whose coll_hieragg_cost_<link>_gamma the user did not set (a reduction costs the same
// whichever link brought the data). Off with coll_hieragg_cost_autocalibrate=0 or a rules file,
// as the link calibration. docs/selection.md, "Automatic calibration".
#pragma once
#include <string>
#include <vector>

#include "CommState.hpp"
#include "hieragg/hier/CostParams.hpp"

namespace hieragg {

// One local reduction timed: `bytes` combined in `us`.
struct ReductionTiming {
    double bytes = 0;
    double us = 0;
};

// The rate [ns/B] from timings of several sizes: per size the floor (the smallest finite
// positive time: a reduction is never faster than the core, only slower when the rank is
// descheduled), then the least-squares slope of the floors against the bytes (the fixed cost of
// a call drops out). 0 (not measured) with fewer than two sizes or a slope that is not positive.
double reduceRateFromTimings(const std::vector<ReductionTiming>& timings);

// The value every rank of a communicator uses: the median (mean of the two middle values for
// an even count) of the members' positive finite rates; 0 when none has one. Every rank holds
// the same rates, so every rank computes the same bits.
double agreedReduceRate(std::vector<double> ratesNsPerByte);

// Sets gamma (ns/B, > 0) on every link class whose bit HIERAGG_COST_SET_GAMMA is not in
// setBits[link] (the user's coll_hieragg_cost_<link>_gamma wins); nothing for a rate of 0.
void applyReduceRate(hier::CostParams& p, double nsPerByte, const int (&setBits)[hier::kLinkClassCount]);

// This process's rate [ns/B], timed on the first call (kProbeSizes, kProbeReps each), the same
// value afterwards; 0 if the timing gave no positive slope.
double localReduceRateNsPerByte();

// The setup's part (src/runtime/DecompositionStage.cpp): what this rank puts in its identity
// record (its rate; 0 when the setup measures nothing: coll_hieragg_cost_autocalibrate=0, a
// rules file), and, once every member's record arrived, the agreed rate applied to the
// communicator's cost parameters (SelectionState::reduceRateNsPerByte keeps it).
double ownReduceRateForSetup();
void applyAgreedReduceRate(hieragg_comm& c, const std::vector<double>& ratesNsPerByte);

// What the verbose `hieragg: node:` line says of gamma (`link` the line's; nothing for the
// network's): "; gamma=G ns/B" and where it came from (timed at setup, the median of N ranks;
// set by coll_hieragg_cost_node_gamma; the default, not measured).
std::string reduceRateNote(const hieragg_comm& c, int link);

}  // namespace hieragg
