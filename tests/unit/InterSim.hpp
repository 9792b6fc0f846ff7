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
#include "hieragg/Task.hpp"

namespace hieragg::testing {

class InterSimTransport final : public Transport {
public:
    InterSimTransport(sim::SimTransport& base, int localBase, int remoteBase)
        : base_(base), localBase_(localBase), remoteBase_(remoteBase) {}
    int isend(void* comm, bool local, const void* buf, size_t count, void* type, int peer, int tag,
              void** req) override {
        return base_.isend(comm, local, buf, count, type, (local ? localBase_ : remoteBase_) + peer, tag, req);
    }
    int irecv(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag, void** req) override {
        return base_.irecv(comm, local, buf, count, type, (local ? localBase_ : remoteBase_) + peer, tag, req);
    }
    int test(void* req, bool& done) override { return base_.test(req, done); }
    void abandon(void* req) override { base_.abandon(req); }
    int reduce(void* op, const void* src, void* dst, size_t count, void* type) override {
        return base_.reduce(op, src, dst, count, type);
    }
    int copy(const void* src, size_t sc, void* st, void* dst, size_t rc, void* rt) override {
        return base_.copy(src, sc, st, dst, rc, rt);
    }
    hieragg_dtype_info typeInfo(void* type) override { return base_.typeInfo(type); }
    void* packedType() override { return base_.packedType(); }

private:
    sim::SimTransport& base_;
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
