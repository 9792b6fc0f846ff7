// Scan and exscan share one recipe: pulses of recursive-doubling prefix
// reductions over the whole communicator in rank order (valid for
// non-commutative ops and any decomposition; see docs/recipes-reductions.md).
#pragma once
#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"

namespace hieragg::recipes {

Schedule prefixReduction(const CollCall& c, bool exclusive);

// The rows' own compositions (Scan.cpp): leader_prefix, leader_chain, linear.
Schedule leaderPrefix(const CollCall& c, bool exclusive);
Schedule leaderChain(const CollCall& c, bool exclusive);
Schedule linearPrefix(const CollCall& c, bool exclusive);

}  // namespace hieragg::recipes
