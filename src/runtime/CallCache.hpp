// What a communicator remembers of its calls (hieragg_comm::cache): the last call (its
// signature, plan, schedule, raw arguments: LastCall.hpp), the plan cache per signature class
// and the schedule cache per exact signature (both least recently used first, kCacheLimit
// each; schedules within kCacheBytes too, ScheduleCache.hpp), and the compiled fast path.
// CallPreparation.cpp (scheduleFor) reads and fills them; the keys are CallCacheKeys.hpp's.
//
// The compiled fast path (docs/architecture.md, "The compiled fast path"): a blocking call
// that repeats the last call's signature runs the last schedule compiled into a
// CompiledCall, inside the caller's wait, with no Task, no progress callback and no
// completion callback.
//
// When it may run. The entry (runRepeat) asks compiledForLast only for a blocking call
// whose raw arguments repeat the last call's (LastCall::raw: same kind, counts, root, type
// and op handles, in-place and buffer nullness, on predefined types, one stage, no
// offload, an intracommunicator), so its schedule is the communicator's last one; that is
// the last-call shortcut of scheduleFor, whose state every other call resets. The compiled
// call is bound to that schedule object and to the layouts of the send and receive types:
// another schedule (a new signature, a plan rebuilt after a fabric failure) or layout
// compiles anew, and a schedule the compiler declined stays on the Task path. That check,
// and that the compiled call's peers are the communicator's, is made once per kept raw
// arguments (LastCall::rawGeneration), not on every repeat.
// Buffers, type and op handles are bound per call, never compiled; the communicator's parts
// of the binding (its handle, MPI_T counters, the transport's packed type: fixed for its
// life) are bound once per answer (runRepeat's admit).
#pragma once
#include <memory>

#include "CompiledCall.hpp"
#include "LastCall.hpp"
#include "ScheduleCache.hpp"
#include "hieragg/CollCall.hpp"
#include "hieragg/LruCache.hpp"

namespace hieragg {

constexpr size_t kCacheLimit = 128;  // schedules (and plans) kept per communicator
// Memory the cached schedules (with their keys and per-rank vectors) of one communicator may
// hold; the most recent one stays whatever its size (ScheduleCache.hpp).
constexpr size_t kCacheBytes = size_t{64} << 20;

// A blocking call's completion: the caller waits on it (CallCache::wait).
struct BlockingWait {
    volatile bool done = false;
    int status = 0;
    static void complete(void* ctx, int status) {
        auto* w = static_cast<BlockingWait*>(ctx);
        w->status = status;
        w->done = true;
    }
};

class CallCache {
public:
    CallCache();
    ~CallCache();
    CallCache(const CallCache&) = delete;
    CallCache& operator=(const CallCache&) = delete;

    LastCall last;
    ScheduleCache schedules{kCacheLimit, kCacheBytes};
    LruCache<std::shared_ptr<const hier::Plan>> plans{kCacheLimit};

    // The compiled form of `sched` for send and receive types of layouts `stype` and
    // `rtype`, compiled now if it is not yet; null when the compiler declines it (then
    // never asked again for that schedule) or while a compiled call is still running.
    // Inline: every repeated call asks, and it is nearly always the one compiled already.
    CompiledCall* compiledFor(const std::shared_ptr<const Schedule>& sched, const hieragg_dtype_info& stype,
                              const hieragg_dtype_info& rtype) {
        if (compiled_ && compiled_->schedule() == sched.get() && sched && !inFlight_ && !failed_ &&
            sameLayout(stype_, stype) && sameLayout(rtype_, rtype))
            return compiled_.get();
        return compileFor(sched, stype, rtype);
    }
    // compiledFor(last.schedule, last.rawStype, last.rawRtype), for the entry of a call that
    // repeats the last raw arguments, if `admit(f)` says yes. While the raw arguments stay
    // (LastCall::rawGeneration) and nothing was compiled since, the answer found for them is
    // given again without comparing the schedule and the layouts, and without asking
    // `admit`: it is asked once per answer looked for anew, so what it checks (the entry:
    // that the call's peers are the communicator's) must not change while the raw arguments
    // stay, and what it binds into f (the entry: the communicator's parts of the binding)
    // stays bound. A compiled call it refuses is never handed out. Null as compiledFor, and
    // while a compiled call is running or after one failed.
    template <class Admit>
    CompiledCall* compiledForLast(Admit&& admit) {
        if (lastCompiled_ && lastGeneration_ == last.rawGeneration && !inFlight_ && !failed_) return lastCompiled_;
        CompiledCall* f = findLast();
        if (f && !admit(*f)) f = nullptr;
        lastCompiled_ = f;
        lastGeneration_ = last.rawGeneration;
        return f;
    }
    // Starts `f` (from compiledFor) for the waiting caller `w`: completes `w` now if the
    // call is over at once, else leaves it in flight for wait(). Returns an error code
    // (nothing in flight, `w` untouched) when it could not start.
    // Inline: every compiled call starts here.
    int start(CompiledCall& f, Transport& tr, const CompiledCall::Binding& b, BlockingWait& w) {
        return started(f, f.start(tr, b), w);
    }
    // The same for `f` that its caller started itself (CompiledCall::startBound), with the
    // start's error code `rc`.
    int started(CompiledCall& f, int rc, BlockingWait& w) {
        if (rc) {
            failed_ = true;
            return rc;
        }
        if (f.done()) {
            end(w, f.status());
            return 0;
        }
        inFlight_ = &f;
        waiter_ = &w;
        return 0;
    }
    // Waits for `w`: drives the transport's progress (the PML, and the Task calls through
    // the runtime's progress callback) and the compiled call in flight, if any. A template
    // so that on the PML's transport (a final class) each pass calls the shim's progress,
    // opal_progress itself, without a virtual call. Out of line (its own frame, once per
    // wait): the loop that calls opal_progress stays a function of its own, as
    // bench/callgrind_percall.py counts a wait loop's passes.
    template <class T>
    __attribute__((noinline)) void wait(BlockingWait& w, T& tr) {
        while (!w.done) {
            if (inFlight_ && waiter_ == &w && inFlight_->mayHaveMoved() && inFlight_->poll()) {
                const int status = inFlight_->status();
                inFlight_ = nullptr;
                waiter_ = nullptr;
                end(w, status);
                return;
            }
            tr.progress();
        }
    }
    // Drops the compiled call (its schedule and layouts); the next repeat compiles anew.
    void clear();
    // A compiled call failed (a process failure, a revoked communicator: docs/fault-tolerance.md):
    // from then on every call of the communicator takes the general path.
    bool failed() const { return failed_; }
    // Tests: compilations so far, and why the last one declined ("" if it did not).
    size_t compilations() const { return compilations_; }
    const char* declined() const { return declined_; }

private:
    // Layouts are equal: their size, bounds and extents (not whether they are predefined).
    __attribute__((always_inline)) static bool sameLayout(const hieragg_dtype_info& a, const hieragg_dtype_info& b) {
        return ((a.size ^ b.size) | static_cast<size_t>((a.lb ^ b.lb) | (a.extent ^ b.extent) |
                                                        (a.true_lb ^ b.true_lb) | (a.true_extent ^ b.true_extent))) == 0;
    }
    // compiledForLast when its last answer does not hold: compiledFor for the last raw
    // arguments (null if none are kept).
    CompiledCall* findLast();
    // compiledFor when it is not the compiled call: compiles, or says why not (null).
    CompiledCall* compileFor(const std::shared_ptr<const Schedule>& sched, const hieragg_dtype_info& stype,
                             const hieragg_dtype_info& rtype);
    // Completes `w`, remembering a failure.
    void end(BlockingWait& w, int status) {
        if (status != 0) failed_ = true;  // every later call of this communicator takes the general path
        BlockingWait::complete(&w, status);
    }

    std::unique_ptr<CompiledCall> compiled_;
    hieragg_dtype_info stype_{}, rtype_{};                // the layouts compiled_ is bound to
    std::shared_ptr<const Schedule> refused_;             // the schedule the compiler declined
    CompiledCall* lastCompiled_ = nullptr;  // compiledForLast's answer for lastGeneration_
    uint64_t lastGeneration_ = 0;
    CompiledCall* inFlight_ = nullptr;
    BlockingWait* waiter_ = nullptr;
    size_t compilations_ = 0;
    bool failed_ = false;
    const char* declined_ = "";
};

}  // namespace hieragg
