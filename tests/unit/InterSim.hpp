// Intercommunicators in the simulator, without changing it: groups A and B live
// in one SimNetwork (A = ranks 0..na-1, B = na..na+nb-1), and each rank's
// transport maps a peer index to the remote group, or to its own group for
// local-communicator steps. Tasks run round-robin until done, as sim::run does.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "SimFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/ForwardingTransport.hpp"
#include "hieragg/Task.hpp"

namespace hieragg::testing {

// Peer indexes mapped to the simulator's ranks; everything else goes to the simulator's transport.
class InterSimTransport final : public ForwardingTransport<> {
public:
    InterSimTransport(sim::SimTransport& base, int localBase, int remoteBase)
        : ForwardingTransport(base), localBase_(localBase), remoteBase_(remoteBase) {}
    int isend(void* comm, bool local, const void* buf, size_t count, void* type, int peer, int tag,
              void** req) override {
        return next_.isend(comm, local, buf, count, type, (local ? localBase_ : remoteBase_) + peer, tag, req);
    }
    int irecv(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag, void** req) override {
        return next_.irecv(comm, local, buf, count, type, (local ? localBase_ : remoteBase_) + peer, tag, req);
    }

private:
    int localBase_, remoteBase_;
};

// calls[g] for global index g (A first); each call's rank/size/remoteSize are the caller's.
inline std::string runInter(sim::SimNetwork& net, int na, std::vector<CollCall>& calls) {
    sim::SimComm comm{3};
    const int n = static_cast<int>(calls.size());
    std::vector<std::unique_ptr<InterSimTransport>> trs;
    std::vector<std::unique_ptr<Task>> tasks;
    for (int g = 0; g < n; ++g) {
        const bool inA = g < na;
        trs.push_back(std::make_unique<InterSimTransport>(net.transport(g), inA ? 0 : na, inA ? na : 0));
        describeTypes(calls[g], *trs[g]);
        auto s = std::make_shared<Schedule>(recipes::buildSchedule(calls[g]));
        tasks.push_back(std::make_unique<Task>(s, *trs[g], bindCall(calls[g], *trs[g], &comm, -1, -1 - (1 << 20))));
    }
    for (auto& t : tasks)
        if (t->start() != 0) return "start failed: " + net.error();
    for (int round = 0; round < 100000; ++round) {
        bool all = true, moved = false;
        for (auto& t : tasks) {
            const size_t before = t->completedSteps();
            if (!t->done()) t->progress();
            moved |= t->completedSteps() != before;
            all &= t->done();
        }
        if (!net.error().empty()) return net.error();
        for (auto& t : tasks)
            if (t->status()) return "task failed";
        if (all) return net.unmatchedMessages() ? "unmatched messages" : "";
        if (!moved) return "deadlock";
    }
    return "too many rounds";
}

}  // namespace hieragg::testing
