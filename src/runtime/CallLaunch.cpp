#include "CallLaunch.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "AlgorithmCalls.hpp"
#include "CallPreparation.hpp"
#include "ReproducibleCall.hpp"
#include "Runtime.hpp"
#include "TwoStageCall.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg {

namespace {

// Which tags a Task takes: the next per-pair call numbers, a persistent request's tags
// of its init, or numbers a chain reserved earlier (one per link, on every pair).
struct CallNumbers {
    int64_t persistentId = -1;                        // >= 0: a persistent request
    const std::vector<uint32_t>* reserved = nullptr;  // per peer: first number of a chain
    uint32_t link = 0;                                // this Task's offset in the chain
    bool countCall = true;  // MPI_T: count the algorithms that served (a chain's first link only)
};

// Builds (or finds) the schedule and starts its Task on `tr`. Returns an error code
// without calling `done` when nothing was started.
int launchTask(hieragg_comm& c, const hieragg_coll_args& args, Transport& tr, const CallNumbers& numbers,
               hieragg_complete_fn done, void* ctx, VarStage stage = {}) {
    Runtime* rt = Runtime::instance();
    try {
        // A strong chain's links run on their own transport: never offloaded.
        const bool plainTransport = &tr == &rt->transport();
        CollCall call;
        std::shared_ptr<const Schedule> sched;
        if (int rc = scheduleFor(c, args, call, sched, plainTransport, stage)) return rc;
        Transport* taskTr = &tr;
        size_t fabricSteps = 0;
        if (c.offload.on && plainTransport) {
            fabricSteps = sched->countKind(StepKind::Collective);
            if (fabricSteps > 0) {
                if (!c.offload.transport) return HIERAGG_ERR_INTERNAL;  // only leaders' schedules hold them
                taskTr = c.offload.transport.get();
            }
        }
        // MPI_T: the decomposition exists here (launches wait for it); the counters learn
        // each peer's level once, then every Task of the communicator counts into them.
        if (!c.countersLevelled) {
            c.counters->setHierarchy(c.decomp.hierarchy.get(), c.rank);
            c.countersLevelled = true;
        }
        // A reused task (its vectors keep their storage): the bindings are filled in place.
        const Schedule& s = *sched;
        std::unique_ptr<Task> task;
        if (c.spareTask) {
            task = std::move(c.spareTask);
            task->reset(std::move(sched), *taskTr);
        } else {
            task = rt->takeTask(std::move(sched), *taskTr);
        }
        TaskBindings& bind = task->bindings();
        bindCallInto(call, tr, c.comm, 0, 0, bind);
        if (fabricSteps > 0) {
            bind.fabricSteps = fabricSteps;
            // Tickets are taken in launch order, which is start order and the same on
            // every leader (queued calls launch in start order; docs/offload.md).
            bind.fabricTicket = c.offload.tickets++;
            bind.fabricElem = call.elemKind;
            bind.fabricOp = call.opKind;
        }
        bind.observer = c.counters;
        if (numbers.persistentId >= 0) {
            // Every start of a persistent request uses the tags of its init: starts of one
            // request follow each other on every rank, and MPI's non-overtaking rule keeps
            // the messages of consecutive starts apart.
            const auto id = static_cast<uint32_t>(numbers.persistentId);
            auto it = c.tags.persistentTags.find(id);
            if (it != c.tags.persistentTags.end()) {
                bind.peerTagBase = it->second.peer;
                bind.localPeerTagBase = it->second.local;
            } else {
                bind.tagBase = tagBase(id, TagSpace::Persistent, false);
                bind.localTagBase = tagBase(id, TagSpace::Persistent, true);
            }
        } else if (numbers.reserved) {
            // Chains run on intracommunicators only (no local group).
            if (!s.localPeers.empty()) return HIERAGG_ERR_INTERNAL;
            for (int p : s.peers)
                bind.peerTagBase.push_back(tagBase(numbers.reserved->at(p) + numbers.link, TagSpace::Call, false));
        } else {
            bind.peerTagBase.resize(s.peers.size());
            takeCallTags(c.tags, s, c.peerCount(), bind.peerTagBase.data());
            takeLocalCallTags(c.tags, s, static_cast<size_t>(c.size), bind.localPeerTagBase);
        }
        // No bind.maxTempBytes: coll_hieragg_max_temp_bytes was applied when the schedule was
        // chosen (chooseUnderTempLimit), and one over it was chosen alike on every rank.
        if (numbers.countCall) countServed(call, s, c);
        if (int rc = task->start()) return rc;
        if (task->done()) {
            // Over already: the next call of this communicator reuses the task at once.
            const int status = task->status();
            task->retire();
            if (task->retainedBytes() <= kSpareTaskBytes) c.spareTask = std::move(task);
            task.reset();
            done(ctx, status);
            return 0;
        }
        rt->track(std::move(task), done, ctx);
        return 0;
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    } catch (const std::exception& e) {
        rt->warn(std::string("hieragg: ") + hieragg_coll_name(args.kind) + ": " + e.what());
        return HIERAGG_ERR_UNSUPPORTED;
    }
}

// The tags of link `link` of a chain: its persistent request's, or the numbers the chain
// reserved on every pair (`reserved`) + link.
CallNumbers chainLink(int64_t persistentId, const std::vector<uint32_t>& reserved, size_t link, bool countCall) {
    CallNumbers numbers;
    numbers.persistentId = persistentId;
    if (persistentId < 0) {
        numbers.reserved = &reserved;
        numbers.link = static_cast<uint32_t>(link);
    }
    numbers.countCall = countCall;
    return numbers;
}

// Starts a strong reduction's chain of links (ReproducibleCall.hpp). It runs where any
// call is launched (the decomposition exists, start order), so every rank reserves the
// chain's numbers at the same point of its per-pair sequences: `links` consecutive
// numbers on EVERY pair of the communicator, whatever each link's schedule touches.
// That is consistent because strong mode serves intracommunicator reductions only,
// which every rank calls (the count is the same everywhere). Later links start from
// the progress engine with the numbers reserved here, so calls started meanwhile on
// any rank never shift them. A persistent request's links all use its init's tags:
// links follow each other on every rank, as consecutive starts do.
int launchReproducible(hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId,
                       hieragg_complete_fn done, void* ctx, ArgsLifetime lifetime) {
    Runtime& rt = *Runtime::instance();
    void* accType = rt.transport().accumulatorType();
    if (!accType) {  // the shim could not create it: keep the job running
        rt.warnOnce("coll_hieragg_reproducible=strong: no accumulator datatype; reductions keep a fixed order only");
        CallNumbers numbers;
        numbers.persistentId = persistentId;
        return launchTask(c, args, rt.transport(), numbers, done, ctx);
    }
    try {
        const size_t segment = rt.config().segment_size ? rt.config().segment_size : 64 * 1024;
        std::unique_ptr<ReproducibleCall> chain =
            ReproducibleCall::create(OwnedCallArgs::held(args, sideOf(c), lifetime), c.rank, c.size, segment,
                                     rt.transport(), accType, done, ctx);
        if (!chain) return HIERAGG_ERR_NO_MEM;
        std::vector<uint32_t> reserved;
        if (persistentId < 0)
            reserved = reserveOnEveryPair(c.tags, static_cast<size_t>(c.size), static_cast<uint32_t>(chain->links()));
        hieragg_comm* comm = &c;
        const int status = chain->run([comm, persistentId, reserved = std::move(reserved)](
                                          const hieragg_coll_args& a, Transport& tr, size_t link,
                                          hieragg_complete_fn linkDone, void* linkCtx) {
            // Later links start from completion callbacks, outside the start's lock.
            std::lock_guard<CommMutex> lock(comm->mutex);
            // One user call, however many links: the first counts it.
            return launchTask(*comm, a, tr, chainLink(persistentId, reserved, link, link == 0), linkDone, linkCtx);
        });
        if (status == 0) chain.release();  // the chain owns itself until it completes the call
        return status;
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    }
}

// A hierarchical gatherv/scatterv/alltoallv/alltoallw (coll_hier TwoStage.hpp): the size
// stage, then the data stage built from it, as two links of a chain whose call numbers
// are reserved here on every pair, as for a strong reduction (launchReproducible): every
// rank of the intracommunicator calls the collective and takes the same decision.
int launchTwoStage(hieragg_comm& c, const CollCall& probe, int64_t persistentId, hieragg_complete_fn done,
                   void* ctx, ArgsLifetime lifetime) {
    try {
        std::unique_ptr<TwoStageCall> chain =
            TwoStageCall::create(OwnedCallArgs::held(probe.args, sideOf(c), lifetime), recipes::sizeStageInput(probe),
                                 recipes::sizeStageLearned(probe), done, ctx);
        if (!chain) return HIERAGG_ERR_NO_MEM;
        std::vector<uint32_t> reserved;
        if (persistentId < 0) reserved = reserveOnEveryPair(c.tags, static_cast<size_t>(c.size), 2);
        hieragg_comm* comm = &c;
        const int status = chain->run([comm, persistentId, reserved = std::move(reserved)](
                                          const hieragg_coll_args& a, int link, const uint64_t* learned,
                                          hieragg_complete_fn stageDone, void* stageCtx) {
            // Stage 1 starts from stage 0's completion, outside the start's lock.
            std::lock_guard<CommMutex> lock(comm->mutex);
            // The data stage names the row that served: it counts the call.
            return launchTask(*comm, a, Runtime::instance()->transport(),
                              chainLink(persistentId, reserved, static_cast<size_t>(link), link == 1), stageDone,
                              stageCtx, VarStage{link + 1, learned});
        });
        if (status == 0) chain.release();  // the chain owns itself until it completes the call
        return status;
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    }
}

}  // namespace

int launch(hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId, hieragg_complete_fn done,
           void* ctx, ArgsLifetime lifetime) {
    Runtime* rt = Runtime::instance();
    if (strongReproducible(*rt, c, args)) return launchReproducible(c, args, persistentId, done, ctx, lifetime);
    if (!c.inter && hier::factsOf(args.kind).sizeStage != hier::SizeStage::None) {
        CollCall probe;
        try {
            prepareCall(c, args, probe, false);
        } catch (const std::bad_alloc&) {
            return HIERAGG_ERR_NO_MEM;
        }
        if (recipes::twoStage(probe)) return launchTwoStage(c, probe, persistentId, done, ctx, lifetime);
    }
    CallNumbers numbers;
    numbers.persistentId = persistentId;
    return launchTask(c, args, rt->transport(), numbers, done, ctx);
}

uint64_t callNumbersBound(const hieragg_comm& c, const hieragg_coll_args& args) {
    if (strongReproducible(*Runtime::instance(), c, args)) return ReproducibleCall::kMaxLinks;
    if (!c.inter && hier::factsOf(args.kind).sizeStage != hier::SizeStage::None) return 2;
    return 1;
}

}  // namespace hieragg
