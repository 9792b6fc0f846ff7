#include "hieragg/SimRun.hpp"

#include <memory>

#include "hieragg/CallBinding.hpp"
#include "hieragg/Task.hpp"

namespace hieragg::sim {

RunResult run(SimNetwork& net, std::vector<std::vector<CollCall>>& calls, const BuildFn& build,
              SimComm* comm) {
    RunResult res;
    SimComm defaultComm{1};
    if (!comm) comm = &defaultComm;
    std::vector<std::unique_ptr<Task>> tasks;
    for (size_t r = 0; r < calls.size(); ++r) {
        for (size_t i = 0; i < calls[r].size(); ++i) {
            CollCall& c = calls[r][i];
            describeTypes(c, net.transport(static_cast<int>(r)));
            std::shared_ptr<const Schedule> s;
            try {
                s = std::make_shared<Schedule>(build(c));
            } catch (const std::exception& e) {
                res.error = "rank " + std::to_string(r) + ": build failed: " + e.what();
                return res;
            }
            if (i == 0) res.algorithms.push_back(s->algorithm);
            const int tagBase = -1000 - static_cast<int>(i) * 4096;
            tasks.push_back(std::make_unique<Task>(
                s, net.transport(static_cast<int>(r)),
                bindCall(c, net.transport(static_cast<int>(r)), comm, tagBase, tagBase - (1 << 24))));
        }
    }
    for (auto& t : tasks) {
        if (t->start() != 0) {
            res.error = "task start failed: " + net.error();
            return res;
        }
    }
    size_t idle = 0;  // rounds in a row in which no task moved
    for (;;) {
        bool allDone = true, moved = false;
        for (auto& t : tasks) {
            if (t->done()) continue;
            const size_t before = t->completedSteps();
            if (t->progress() || t->completedSteps() != before) moved = true;
            if (!t->done()) allDone = false;
        }
        if (!net.error().empty()) {
            res.error = net.error();
            return res;
        }
        for (auto& t : tasks)
            if (t->status() != 0) {
                res.error = "task failed with status " + std::to_string(t->status());
                return res;
            }
        if (allDone) break;
        // A progress call tests a bounded window of a task's posted messages (the oldest
        // and a rotating cursor, Task::sweep), so a round can pass without a completion
        // while a later one finds it: only rounds enough for the cursor to test every
        // posted receive without a move are a deadlock.
        idle = moved ? 0 : idle + 1;
        if (idle > 2 + net.postedReceives() / 32) {
            res.error = "deadlock: no task can move";
            return res;
        }
    }
    if (net.unmatchedMessages() != 0) {
        res.error = std::to_string(net.unmatchedMessages()) + " messages were never received";
        return res;
    }
    res.ok = true;
    return res;
}

RunResult runOne(SimNetwork& net, std::vector<CollCall>& calls, const BuildFn& build, SimComm* comm) {
    std::vector<std::vector<CollCall>> many(calls.size());
    for (size_t r = 0; r < calls.size(); ++r) many[r].push_back(calls[r]);
    return run(net, many, build, comm);
}

}  // namespace hieragg::sim
