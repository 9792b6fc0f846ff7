// Executes one Schedule for one call: binds buffers and datatypes, allocates
// temporaries, and fires every step as soon as the steps it depends on are done.
// Messages carry the call's tag (from the communicator's sequence number and
// the step's channel), so any number of Tasks can be in flight at once.
#pragma once
#include <memory>
#include <vector>

#include "hieragg/Schedule.hpp"
#include "hieragg/TaskObserver.hpp"
#include "hieragg/Transport.hpp"

namespace hieragg {

// Task::reset clears every field for a reused task: a new field needs a line there.
struct TaskBindings {
    const void* sbuf = nullptr;
    void* rbuf = nullptr;
    std::vector<void*> types;  // indexed by the schedule's type slots
    void* op = nullptr;
    void* comm = nullptr;
    int tagBase = -1;       // tag of channel c = tagBase - c
    int localTagBase = -1;  // the same for messages inside an intercommunicator's local group
    // Offloaded collectives (StepKind::Collective): element kind and operation of the call,
    // the call's ticket and how many such steps its schedule has (Transport.hpp).
    int fabricElem = 0, fabricOp = 0;
    uint64_t fabricTicket = 0;
    size_t fabricSteps = 0;
    std::shared_ptr<TaskObserver> observer;  // counts sends and temporaries (null: nobody counts)
    // When set, per peer instead (aligned with Schedule::peers / localPeers): the runtime
    // numbers calls per pair of ranks, so a rank that skips a call it has no message in
    // (Open MPI's MPI layer returns early on count 0) stays in step with the others.
    std::vector<int> peerTagBase, localPeerTagBase;
    // Temporaries the task may allocate (0 = no limit): more fails start() with
    // HIERAGG_ERR_NO_MEM before any message is posted, like a failed allocation.
    size_t maxTempBytes = 0;
};

class Task {
public:
    Task(std::shared_ptr<const Schedule> schedule, Transport& transport, TaskBindings bindings);
    ~Task();
    Task(const Task&) = delete;
    Task& operator=(const Task&) = delete;

    // Reuse (the runtime keeps finished tasks, Runtime::takeTask): retire() gives back what
    // the finished call held (requests, temporaries, the observer's count, the schedule);
    // reset() readies the task for another call of `schedule`, keeping the capacity of its
    // vectors (and its small-temporary arena), so a stream of calls allocates nothing.
    // After reset() the caller fills bindings() (all of it: nothing of the last call stays)
    // and calls start().
    void retire();
    void reset(std::shared_ptr<const Schedule> schedule, Transport& transport);
    TaskBindings& bindings() { return bind_; }
    // Bytes this task keeps allocated between calls (a pool frees tasks that grew large).
    size_t retainedBytes() const;

    // Allocates temporaries and fires the steps that wait for nothing. Returns an error code
    // (0 when it failed with messages still draining: done() comes later, status() says why).
    int start();
    // Advances; true once every step is done, or the task failed and its messages ended.
    bool progress();
    bool done() const { return finished_; }
    int status() const { return status_; }
    const Schedule& schedule() const { return *sched_; }
    size_t completedSteps() const { return completed_; }

private:
    // Identifies one execution of a step: a schedule step, or (>= steps.size()) step i of
    // fragment f of pipeline k, FragmentRun::base of k + f * templateSize + i.
    using RunId = int64_t;
    // The fragment pipelines (TaskFragments.cpp).
    Step stepAt(RunId id) const;  // the step as it runs (fragment offsets, channel, count)
    StepKind kindOf(RunId id) const;
    int pipelineOf(StepId step) const;   // the template holding a schedule step, -1: none
    size_t runPipeline(RunId id) const;  // the pipeline of a fragment's step (id >= steps.size())
    void openPipelines();                // start(): count each template's edges, open the free ones
    void startFragments(size_t k);
    void finishPipeline(size_t k);
    void release(StepId d);              // one dependency of schedule step d is met
    void completeFragmentStep(RunId id);
    char* address(const BufRef& b) const;
    void* typeOf(const TypeRef& t) const { return bind_.types[t.type]; }
    int fire(RunId id);
    int fireStep(const Step& st, RunId id);
    // Size of a type's element, asked of the transport once per call and type (MPI_T counts).
    size_t typeBytes(void* type);
    void complete(RunId id);
    // Ends the call with err: nothing more fires, posted messages are cancelled; those the
    // transport cannot release yet (cancelFailed) are drained (tested until they end)
    // before the task reports done, so no buffer is touched after the call completed.
    void fail(int err);
    bool drain();
    bool stopped() const { return finished_ || draining_; }
    void abandonActive(const std::pair<RunId, void*>& a);
    void abandonAll();
    int allocateTemps();
    // Tests at most a bounded number of posted messages; true if any completed.
    bool sweep();
    bool testAt(size_t i);

    std::shared_ptr<const Schedule> sched_;
    Transport* tr_;
    TaskBindings bind_;
    std::vector<std::unique_ptr<char[]>> tempStore_;
    // Schedules whose temporaries fit kTempArenaBytes take them from this buffer, which a
    // reused task keeps (an 8-byte reduce then allocates nothing per call).
    std::unique_ptr<char[]> arena_;
    size_t arenaBytes_ = 0;
    std::vector<char*> origins_;       // per buffer slot
    std::vector<uint32_t> pending_;    // unmet dependencies per step
    std::vector<RunId> ready_;         // FIFO keeps the schedule's order of posting
    size_t readyHead_ = 0;
    // Posted messages in posting order; a finished one becomes a hole (nullptr request)
    // until the next compaction, so a completion costs O(1) however many are posted.
    std::vector<std::pair<RunId, void*>> active_;
    size_t activeHead_ = 0;   // no live message before this index
    size_t activeHoles_ = 0;
    size_t activeCursor_ = 0; // where the rotating part of the next sweep starts
    size_t completed_ = 0;
    size_t totalSteps_ = 0;            // executions the schedule needs (Schedule::executedSteps)
    // One per fragment pipeline: its first RunId, unmet in-template dependencies per
    // [window slot][template step], in-template dependencies per template step, template
    // steps left per slot, slots finished out of order, edges from earlier steps not met
    // yet, fragments started, fragments done in order.
    struct FragmentRun {
        RunId base = 0;
        std::vector<uint32_t> pending, intraDeps;
        std::vector<size_t> left;
        std::vector<uint8_t> done;
        size_t gatePending = 0, next = 0, donePrefix = 0;
    };
    std::vector<FragmentRun> frags_;
    size_t fabricFired_ = 0;
    void* sizedType_ = nullptr;
    size_t sizedTypeBytes_ = 0;
    bool sizedTypeKnown_ = false;
    size_t heldTempBytes_ = 0;  // reported to the observer, returned in the destructor
    bool finished_ = false;
    bool draining_ = false;  // failed, waiting for cancelled messages to end
    int status_ = 0;
};

}  // namespace hieragg
