// Runs collectives on the simulator: every virtual rank builds its schedule
// from its CollCall and all Tasks are progressed round-robin until they finish.
// A round in which no Task moves while some are unfinished is a deadlock.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/SimNetwork.hpp"

namespace hieragg::sim {

struct RunResult {
    bool ok = false;
    std::string error;
    std::vector<std::string> algorithms;  // per rank, of the first call
};

using BuildFn = std::function<Schedule(const CollCall&)>;

// calls[rank] = the collectives that rank starts, in order, all in flight at once.
// Calls with args.kind set use `build`; each call i gets its own tag block.
RunResult run(SimNetwork& net, std::vector<std::vector<CollCall>>& calls, const BuildFn& build,
              SimComm* comm = nullptr);
RunResult runOne(SimNetwork& net, std::vector<CollCall>& calls, const BuildFn& build,
                 SimComm* comm = nullptr);

}  // namespace hieragg::sim
