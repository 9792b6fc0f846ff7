#include "CallStart.hpp"

#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "AlgorithmCalls.hpp"
#include "CallLaunch.hpp"
#include "CallPreparation.hpp"
#include "Runtime.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"

namespace hieragg {

namespace {

// The decomposition exists and no call waits in the queue: a call may launch now, if its
// tags fit the window.
bool readyAndUnqueued(const hieragg_comm& c) { return c.decomp.ready() && c.decomp.pending.empty(); }

// Besides, no call of this communicator is in flight here: a blocking call launches at once,
// outside the window's accounting (no tags to keep clear of, and nothing starts on the
// communicator before it returns). The compiled fast path runs only then.
bool readyAndIdle(const hieragg_comm& c) { return readyAndUnqueued(c) && c.window.idle(); }

// Binds what of a compiled call's binding is the communicator's for its life (its handle,
// its MPI_T counters, the runtime transport's packed type, its per-pair call numbers: sized
// by the caller, never moved after), once per answer of compiledForLast: runCompiled binds
// only the call's own buffers, types and op, and takes its tags.
void bindCommunicator(CompiledCall& f, hieragg_comm& c, Transport& tr) {
    f.bindCommunicator(c.comm, c.counters.get(), tr.packedType());
    f.bindPairNumbers(c.tags.pairSeq.data(), c.tags.callTags);
}

// Runs the compiled last call for the blocking caller waiting on `w` (CallCache.hpp).
// Inline in runBlocking and runBarrier, its two callers: a frame here costs ~20 per call.
__attribute__((always_inline)) inline int runCompiled(hieragg_comm& c, const hieragg_coll_args& args, Transport& tr,
                                                      CompiledCall& f, bool countCall, BlockingWait& w) {
    c.cache.last.isLast = true;
    f.takeTags();  // runRepeat checked pairSeq's size and bound it (bindCommunicator)
    if (countCall) countLastServed(c);
    // Straight into the slots the actions read: no Binding filled and copied.
    return c.cache.started(f, f.startBound(tr, args.sbuf, args.rbuf, args.stype, args.rtype, args.op), w);
}

// The compiled fast path's entry (CallCache.hpp), the first thing a blocking call does:
// a repeat of the last call's raw arguments on a communicator whose decomposition is
// ready, with nothing else of it queued or in flight here (the case startCall launches
// without the window's accounting), runs the last schedule compiled into a flat action
// array, inside the caller's wait. It is what launch() would run for it: never a strong
// reduction's chain, and last-raw state exists only for one-stage calls on
// intracommunicators without offload.
// Kinds with per-rank vectors are compared by value in scheduleFor and never come here.
// False (nothing started) for every other call; else *rc is the start's error code.
// Under the communicator's lock only with MPI_THREAD_MULTIPLE: below it MPI calls follow one
// another, and what runs meanwhile on this thread (a completion from the progress engine
// inside the start's posts) took the lock recursively anyway; the MPI_T readers of other
// threads read only atomic counters and the selection's costs, which this never writes.
// `repeatsCompilable(last)`: the call repeats the last raw arguments and they are compilable
// (LastCall::rawCompilable: the kind and strong reduction are decided with them).
template <class RepeatsCompilable>
__attribute__((always_inline)) inline bool runRepeat(Runtime& rt, hieragg_comm& c, const hieragg_coll_args& args,
                                                     RepeatsCompilable&& repeatsCompilable, BlockingWait& w, int* rc) {
    CommLockIf lock(c.mutex, rt.threadMultiple());
    // Behind a queued call, or beside nonblocking calls in flight here, the call goes
    // through startCall: it must keep its place in the queue and the window's count.
    if (!readyAndIdle(c) || !c.cache.last.servedValid || !repeatsCompilable(c.cache.last)) return false;
    // Once per answer (compiledForLast): its peers are the communicator's (the schedule's
    // builder says so; a Task's .at() checks; pairSeq is sized once, for the communicator's
    // life), else the call takes the general path, which fails it; and the communicator's
    // parts of its binding are bound.
    Transport& tr = rt.transport();
    CompiledCall* f = c.cache.compiledForLast([&c, &tr](CompiledCall& fc) {
        if (fc.peerBound() > pairNumbers(c.tags, c.peerCount()).size()) return false;
        bindCommunicator(fc, c, tr);
        return true;
    });
    if (!f) return false;
    *rc = runCompiled(c, args, tr, *f, true, w);
    return true;
}

// Whether the call may start now without meeting the tags of a call in flight here.
bool fitsWindow(const hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId) {
    const uint32_t w = Runtime::instance()->tags().window();
    if (persistentId >= 0) return c.window.fitsPersistent(static_cast<uint32_t>(persistentId), c.inter, w);
    return c.window.fitsCall(callNumbersBound(c, args), w);
}

void drainPending(hieragg_comm& c);

// A nonblocking call or persistent start counted in its communicator's window: its
// completion frees its numbers and starts the calls that waited for them.
struct WindowedCompletion {
    hieragg_comm* comm;
    uint64_t first;  // its first number (not persistent)
    int64_t persistentId;
    hieragg_complete_fn done;
    void* ctx;

    static void complete(void* self, int status) {
        std::unique_ptr<WindowedCompletion> w(static_cast<WindowedCompletion*>(self));
        hieragg_comm& c = *w->comm;
        std::lock_guard<CommMutex> lock(c.mutex);
        if (w->persistentId >= 0)
            c.window.closePersistent(static_cast<uint32_t>(w->persistentId));
        else
            c.window.closeCall(w->first);
        w->done(w->ctx, status);
        drainPending(c);
    }
};

// Launches a call that fits the window, counted in it (CallWindow.hpp). A blocking one
// is not recorded: nothing else starts on the communicator until it returns.
int launchCounted(hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId, hieragg_complete_fn done,
                  void* ctx, ArgsLifetime lifetime) {
    if (persistentId < 0 && done == BlockingWait::complete) {
        c.window.openCall(callNumbersBound(c, args), false);
        return launch(c, args, persistentId, done, ctx, lifetime);
    }
    auto* w = new (std::nothrow) WindowedCompletion{&c, 0, persistentId, done, ctx};
    if (!w) return HIERAGG_ERR_NO_MEM;
    if (persistentId >= 0) {
        c.window.openPersistent(static_cast<uint32_t>(persistentId));
    } else {
        try {
            w->first = c.window.openCall(callNumbersBound(c, args), true);
        } catch (const std::bad_alloc&) {
            delete w;
            return HIERAGG_ERR_NO_MEM;
        }
    }
    const int rc = launch(c, args, persistentId, WindowedCompletion::complete, w, lifetime);
    if (rc != 0) {  // nothing started, `done` not called
        if (persistentId >= 0)
            c.window.closePersistent(static_cast<uint32_t>(persistentId));
        else
            c.window.closeCall(w->first);
        delete w;
    }
    return rc;
}

// Runs the queued calls, in start order, while the next one fits the window (the
// decomposition exists). One that cannot start completes with its error (its caller has
// already returned). A call completing meanwhile does not drain again: this loop goes on.
void drainPending(hieragg_comm& c) {
    if (!c.decomp.ready() || c.window.draining) return;
    c.window.draining = true;
    std::deque<PendingStart>& queue = c.decomp.pending;
    while (!queue.empty() && fitsWindow(c, queue.front().args.args(), queue.front().persistentId)) {
        PendingStart p = std::move(queue.front());
        queue.pop_front();
        // p.args goes when this iteration ends: a chain copies what it keeps.
        const int rc = launchCounted(c, p.args.args(), p.persistentId, p.done, p.ctx, ArgsLifetime::UntilReturn);
        if (rc != 0) p.done(p.ctx, rc);
    }
    c.window.draining = false;
}

// The decomposition exists: run the calls that waited for it, in start order, as the
// window lets them. If it failed, each completes with that error.
void runPending(hieragg_comm& c, int status) {
    if (status == 0) return drainPending(c);
    std::deque<PendingStart> pending;
    pending.swap(c.decomp.pending);
    for (const PendingStart& p : pending) p.done(p.ctx, status);
}

// Says once per communicator that a call waits for the window (coll_hieragg_verbose=2).
void announceWait(hieragg_comm& c) {
    if (c.window.announced) return;
    c.window.announced = true;
    Runtime* rt = Runtime::instance();
    rt->verbose(2, "hieragg: tags: a call on a communicator of " + std::to_string(c.size) +
                       " ranks waits: it would reuse the tags of a call still in flight here (" +
                       std::to_string(c.window.inFlight()) + " in flight, window " +
                       std::to_string(rt->tags().window()) +
                       "); it starts when the older calls complete (once per communicator, world rank " +
                       std::to_string(c.worldRank) + ")");
}

}  // namespace

int startCall(hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId, hieragg_complete_fn done,
              void* ctx, ArgsLifetime lifetime) {
    if (!Runtime::instance()) return HIERAGG_ERR_INTERNAL;
    std::lock_guard<CommMutex> lock(c.mutex);
    // A blocking call with nothing in flight or queued here (the repeated-call path pays
    // three tests more).
    if (done == BlockingWait::complete && persistentId < 0 && readyAndIdle(c))
        return launch(c, args, persistentId, done, ctx, lifetime);
    if (readyAndUnqueued(c) && fitsWindow(c, args, persistentId))
        return launchCounted(c, args, persistentId, done, ctx, lifetime);
    try {
        // Launched after this returns: a nonblocking caller's arrays are copied now.
        c.decomp.pending.push_back({OwnedCallArgs::held(args, sideOf(c), lifetime), done, ctx, persistentId});
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    }
    if (c.decomp.ready()) {
        // Behind the window (or behind a call that waits for it): a call in flight here
        // completes and drains the queue from the progress engine.
        announceWait(c);
        return 0;
    }
    beginDecomposition(c, runPending);  // may run the pending calls at once
    return 0;
}

namespace {

// A blocking call: the compiled fast path when it repeats the last call (runRepeat, asked
// through `repeatsCompilable`), else startCall; then the wait.
template <class RepeatsCompilable>
__attribute__((always_inline)) inline int runBlockingIf(hieragg_comm& c, const hieragg_coll_args& args,
                                                        RepeatsCompilable&& repeatsCompilable) {
    Runtime* rt = Runtime::instance();
    if (!rt) return HIERAGG_ERR_INTERNAL;
    BlockingWait w;
    int rc = 0;
    if (!runRepeat(*rt, c, args, repeatsCompilable, w, &rc))
        rc = startCall(c, args, -1, BlockingWait::complete, &w, ArgsLifetime::UntilCompletion);
    if (rc != 0) return rc;
    if (!w.done) c.cache.wait(w, rt->transport());  // (a repeat often ends in its start)
    return w.status;
}

}  // namespace

int runBlocking(hieragg_comm& c, const hieragg_coll_args& args) {
    return runBlockingIf(c, args, [&args](const LastCall& last) { return last.rawCompilable && last.repeatsRaw(args); });
}

int runBarrier(hieragg_comm& c) {
    // Its arguments never change: whether the last ones were a barrier's was decided once.
    return runBlockingIf(c, kBarrierArgs, [](const LastCall& last) { return last.repeatsCompilableBarrier(); });
}

}  // namespace hieragg
