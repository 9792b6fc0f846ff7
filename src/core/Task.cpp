#include "hieragg/Task.hpp"

#include <algorithm>
#include <new>

namespace hieragg {

namespace {
constexpr int kErrNoMem = HIERAGG_ERR_NO_MEM;
// A sweep tests the oldest kFrontWindow live messages (which usually complete first)
// and kRotatingWindow more from a cursor that cycles through the rest, so a schedule
// that posts tens of thousands of segments at once costs O(1) per progress call
// instead of O(posted), and every message is still tested within a bounded number
// of sweeps (no completion is missed for ever).
constexpr size_t kFrontWindow = 64;
constexpr size_t kRotatingWindow = 64;
// Temporaries up to this many bytes in all live in the task's arena (kept when the task
// is reused); each starts on a multiple of kTempAlign, as operator new[] would align it.
constexpr size_t kTempArenaBytes = 16 * 1024;
constexpr size_t kTempAlign = 64;
size_t alignedTemp(size_t bytes) { return ((bytes ? bytes : 1) + kTempAlign - 1) / kTempAlign * kTempAlign; }
}

Task::Task(std::shared_ptr<const Schedule> schedule, Transport& transport, TaskBindings bindings)
    : sched_(std::move(schedule)), tr_(&transport), bind_(std::move(bindings)) {}

Task::~Task() { retire(); }

void Task::abandonAll() {
    for (auto& a : active_)
        if (a.second) {
            abandonActive(a);
            a.second = nullptr;
        }
}

void Task::retire() {
    abandonAll();
    tempStore_.clear();
    if (bind_.observer && heldTempBytes_) bind_.observer->tempsHeld(-static_cast<long long>(heldTempBytes_));
    heldTempBytes_ = 0;
    // Nothing of a finished call keeps its schedule or its communicator's counters alive.
    bind_.observer.reset();
    sched_.reset();
}

void Task::reset(std::shared_ptr<const Schedule> schedule, Transport& transport) {
    retire();
    sched_ = std::move(schedule);
    tr_ = &transport;
    // Fresh bindings (the caller fills them); the vectors keep their storage.
    bind_.sbuf = nullptr;
    bind_.rbuf = nullptr;
    bind_.types.clear();
    bind_.op = bind_.comm = nullptr;
    bind_.tagBase = bind_.localTagBase = -1;
    bind_.fabricElem = bind_.fabricOp = 0;
    bind_.fabricTicket = 0;
    bind_.fabricSteps = 0;
    bind_.peerTagBase.clear();
    bind_.localPeerTagBase.clear();
    bind_.maxTempBytes = 0;
    sizedTypeKnown_ = false;
    origins_.clear();
    pending_.clear();
    ready_.clear();
    readyHead_ = 0;
    active_.clear();
    activeHead_ = activeHoles_ = activeCursor_ = 0;
    completed_ = totalSteps_ = 0;
    frags_.clear();
    fabricFired_ = 0;
    finished_ = false;
    draining_ = false;
    status_ = 0;
}

size_t Task::retainedBytes() const {
    // The vectors that grow with the schedule (the others hold a few entries per slot or peer).
    return arenaBytes_ + pending_.capacity() * sizeof(uint32_t) + ready_.capacity() * sizeof(RunId) +
           active_.capacity() * sizeof(active_[0]) + frags_.capacity() * sizeof(FragmentRun) +
           bind_.types.capacity() * sizeof(void*) + origins_.capacity() * sizeof(char*) +
           (bind_.peerTagBase.capacity() + bind_.localPeerTagBase.capacity()) * sizeof(int);
}

// Binds every temporary slot to memory: the arena when they all fit it, else one
// allocation each. Returns an error code.
int Task::allocateTemps() {
    const Schedule& s = *sched_;
    size_t total = 0;
    for (const auto& t : s.temps) total += alignedTemp(t.bytes);
    if (total <= kTempArenaBytes) {
        if (arenaBytes_ < total) {
            arena_.reset(new (std::nothrow) char[kTempArenaBytes]);
            if (!arena_) {
                arenaBytes_ = 0;
                return kErrNoMem;
            }
            arenaBytes_ = kTempArenaBytes;
        }
        size_t at = 0;
        for (size_t i = 0; i < s.temps.size(); ++i) {
            origins_[kFirstTemp + i] = arena_.get() + at + s.temps[i].bias;
            at += alignedTemp(s.temps[i].bytes);
        }
        return 0;
    }
    tempStore_.reserve(s.temps.size());
    for (size_t i = 0; i < s.temps.size(); ++i) {
        std::unique_ptr<char[]> mem(new (std::nothrow) char[s.temps[i].bytes ? s.temps[i].bytes : 1]);
        if (!mem) return kErrNoMem;
        origins_[kFirstTemp + i] = mem.get() + s.temps[i].bias;
        tempStore_.push_back(std::move(mem));
    }
    return 0;
}

void Task::abandonActive(const std::pair<RunId, void*>& a) {
    if (kindOf(a.first) == StepKind::Collective)
        tr_->abandonCollective(a.second);
    else
        tr_->abandon(a.second);
}

char* Task::address(const BufRef& b) const {
    return origins_[b.slot] + b.offset;
}

int Task::start() {
    const Schedule& s = *sched_;
    origins_.assign(kFirstTemp + s.temps.size(), nullptr);
    origins_[kSendBuf] = const_cast<char*>(static_cast<const char*>(bind_.sbuf));
    origins_[kRecvBuf] = static_cast<char*>(bind_.rbuf);
    if (bind_.maxTempBytes != 0 && s.tempBytes() > bind_.maxTempBytes) {
        fail(kErrNoMem);
        return kErrNoMem;
    }
    if (allocateTemps() != 0) {
        fail(kErrNoMem);
        return kErrNoMem;
    }
    if (bind_.observer && !s.temps.empty()) {
        heldTempBytes_ = s.tempBytes();
        bind_.observer->tempsHeld(static_cast<long long>(heldTempBytes_));
    }
    pending_.resize(s.steps.size());  // reset() emptied it: every entry is set below
    ready_.reserve(s.steps.size());
    // One allocation instead of a doubling series while the first messages are posted.
    active_.reserve(std::min<size_t>(s.steps.size(), 64));
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const auto id = static_cast<StepId>(i);
        pending_[i] = s.steps[i].depCount;
        if (pending_[i] == 0 && pipelineOf(id) < 0) ready_.push_back(id);  // templates run per fragment
    }
    totalSteps_ = s.executedSteps();
    openPipelines();
    if (totalSteps_ == 0) finished_ = true;
    progress();
    // Failed while messages it posted still move data: the error comes with the
    // completion, once they ended (drain).
    return draining_ ? 0 : status_;
}

int Task::fire(RunId id) {
    const Schedule& s = *sched_;
    if (id < static_cast<RunId>(s.steps.size())) return fireStep(s.steps[static_cast<size_t>(id)], id);
    const Step st = stepAt(id);  // a fragment's step: shifted copy
    return fireStep(st, id);
}

size_t Task::typeBytes(void* type) {
    if (type != sizedType_ || !sizedTypeKnown_) {
        sizedType_ = type;
        sizedTypeBytes_ = tr_->typeInfo(type).size;
        sizedTypeKnown_ = true;
    }
    return sizedTypeBytes_;
}

int Task::fireStep(const Step& st, RunId id) {
    switch (st.kind) {
    case StepKind::Send:
    case StepKind::Recv: {
        const std::vector<int>& perPeer = st.localComm ? bind_.localPeerTagBase : bind_.peerTagBase;
        const int base = !perPeer.empty() ? perPeer[st.peerSlot]
                                          : (st.localComm ? bind_.localTagBase : bind_.tagBase);
        const int tag = base - static_cast<int>(st.channel);
        void* req = nullptr;
        int rc = st.kind == StepKind::Send
                     ? tr_->isend(bind_.comm, st.localComm, address(st.src), st.srcType.count,
                                 typeOf(st.srcType), st.peer, tag, &req)
                     : tr_->irecv(bind_.comm, st.localComm, address(st.dst), st.dstType.count,
                                 typeOf(st.dstType), st.peer, tag, &req);
        if (rc != 0) return rc;
        if (bind_.observer && st.kind == StepKind::Send)
            bind_.observer->sent(st.peer, st.localComm, st.srcType.count * typeBytes(typeOf(st.srcType)));
        // A short send or a receive whose message is already here completes at once: no
        // trip through the list of posted messages.
        bool done = false;
        if (int trc = tr_->test(req, done)) return trc;  // the test released the request
        if (done) {
            complete(id);
            return 0;
        }
        active_.emplace_back(id, req);
        return 0;
    }
    case StepKind::Copy: {
        int rc = tr_->copy(address(st.src), st.srcType.count, typeOf(st.srcType), address(st.dst),
                          st.dstType.count, typeOf(st.dstType));
        if (rc != 0) return rc;
        complete(id);
        return 0;
    }
    case StepKind::Reduce: {
        int rc = tr_->reduce(bind_.op, address(st.src), address(st.dst), st.srcType.count,
                            typeOf(st.srcType));
        if (rc != 0) return rc;
        complete(id);
        return 0;
    }
    case StepKind::Nop:
        complete(id);
        return 0;
    case StepKind::Collective: {
        FabricCollective fc;
        fc.kind = static_cast<FabricKind>(st.fabric);
        fc.src = address(st.src);
        fc.dst = address(st.dst);
        fc.count = st.srcType.count;
        fc.elem = bind_.fabricElem;
        fc.op = bind_.fabricOp;
        fc.root = st.peer;
        fc.segment = st.dstType.count;
        fc.ticket = bind_.fabricTicket;
        fc.lastOfTicket = ++fabricFired_ >= bind_.fabricSteps;
        void* req = nullptr;
        if (int rc = tr_->icollective(fc, &req)) return rc;
        if (bind_.observer)
            bind_.observer->offloaded(fc.kind == FabricKind::Allreduce ? fc.count * elemKindBytes(fc.elem)
                                      : fc.kind == FabricKind::Bcast   ? fc.count
                                                                       : 0);
        active_.emplace_back(id, req);
        return 0;
    }
    }
    return 0;
}

void Task::complete(RunId id) {
    ++completed_;
    const Schedule& s = *sched_;
    if (id >= static_cast<RunId>(s.steps.size())) return completeFragmentStep(id);
    const uint32_t end = s.dependentBegin[id + 1];
    for (uint32_t j = s.dependentBegin[id]; j < end; ++j) release(s.dependents[j]);
}

// Tests active_[i] (live); on completion leaves a hole and completes the step.
bool Task::testAt(size_t i) {
    bool done = false;
    const int rc = kindOf(active_[i].first) == StepKind::Collective
                       ? tr_->testCollective(active_[i].second, done)
                       : tr_->test(active_[i].second, done);
    if (rc != 0) {
        active_[i].second = nullptr;  // released by test
        fail(rc);
        return true;
    }
    if (!done) return false;
    active_[i].second = nullptr;
    ++activeHoles_;
    complete(active_[i].first);
    return true;
}

bool Task::sweep() {
    bool moved = false;
    while (activeHead_ < active_.size() && !active_[activeHead_].second) ++activeHead_;
    size_t i = activeHead_, live = 0;
    for (; i < active_.size() && live < kFrontWindow && !stopped(); ++i) {
        if (!active_[i].second) continue;
        ++live;
        moved |= testAt(i);
    }
    if (stopped()) return true;
    const size_t frontEnd = i;
    if (activeCursor_ < frontEnd || activeCursor_ >= active_.size()) activeCursor_ = frontEnd;
    live = 0;
    for (; activeCursor_ < active_.size() && live < kRotatingWindow && !stopped(); ++activeCursor_) {
        if (!active_[activeCursor_].second) continue;
        ++live;
        moved |= testAt(activeCursor_);
    }
    if (stopped()) return true;
    // Drop the holes once they are half the list (stable: posting order is kept).
    if (activeHoles_ > 32 && 2 * activeHoles_ > active_.size()) {
        size_t out = 0;
        for (size_t k = 0; k < active_.size(); ++k)
            if (active_[k].second) active_[out++] = active_[k];
        active_.resize(out);
        activeHead_ = activeHoles_ = activeCursor_ = 0;
    }
    return moved;
}

bool Task::progress() {
    if (finished_) return true;
    if (draining_) return drain();
    for (bool moved = true; moved && !finished_;) {
        moved = false;
        while (readyHead_ < ready_.size()) {
            int rc = fire(ready_[readyHead_++]);
            if (rc != 0) {
                fail(rc);
                return draining_ ? drain() : true;
            }
            moved = true;
        }
        // Completions are handled in the order messages were posted (within a sweep).
        if (sweep()) moved = true;
        if (draining_) return drain();
        if (finished_) return true;
        if (completed_ == totalSteps_) finished_ = true;
        // Everything queued has fired: forget it, so a long pipeline's queue stays bounded.
        if (readyHead_ == ready_.size()) {
            ready_.clear();
            readyHead_ = 0;
        }
    }
    if (finished_) {
        tempStore_.clear();  // give memory back as soon as the call is over
        if (status_ == 0) {  // every step completed: no live request among the holes
            active_.clear();
            activeHead_ = activeHoles_ = activeCursor_ = 0;
        }
    }
    return finished_;
}

}  // namespace hieragg
