#include "hieragg/Task.hpp"

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
}

Task::Task(std::shared_ptr<const Schedule> schedule, Transport& transport, TaskBindings bindings)
    : sched_(std::move(schedule)), tr_(transport), bind_(std::move(bindings)) {}

Task::~Task() {
    for (auto& a : active_)
        if (a.second) abandonActive(a);
    if (bind_.observer && heldTempBytes_) bind_.observer->tempsHeld(-static_cast<long long>(heldTempBytes_));
}

void Task::abandonActive(const std::pair<StepId, void*>& a) {
    if (sched_->steps[a.first].kind == StepKind::Collective)
        tr_.abandonCollective(a.second);
    else
        tr_.abandon(a.second);
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
    tempStore_.reserve(s.temps.size());
    for (size_t i = 0; i < s.temps.size(); ++i) {
        std::unique_ptr<char[]> mem(new (std::nothrow) char[s.temps[i].bytes ? s.temps[i].bytes : 1]);
        if (!mem) {
            fail(kErrNoMem);
            return kErrNoMem;
        }
        origins_[kFirstTemp + i] = mem.get() + s.temps[i].bias;
        tempStore_.push_back(std::move(mem));
    }
    if (bind_.observer && !s.temps.empty()) {
        heldTempBytes_ = s.tempBytes();
        bind_.observer->tempsHeld(static_cast<long long>(heldTempBytes_));
    }
    pending_.resize(s.steps.size());
    ready_.reserve(s.steps.size());
    for (size_t i = 0; i < s.steps.size(); ++i) {
        pending_[i] = s.steps[i].depCount;
        if (pending_[i] == 0) ready_.push_back(static_cast<StepId>(i));
    }
    if (s.steps.empty()) finished_ = true;
    progress();
    return status_;
}

int Task::fire(StepId id) {
    const Step& st = sched_->steps[id];
    switch (st.kind) {
    case StepKind::Send:
    case StepKind::Recv: {
        const std::vector<int>& perPeer = st.localComm ? bind_.localPeerTagBase : bind_.peerTagBase;
        const int base = !perPeer.empty() ? perPeer[st.peerSlot]
                                          : (st.localComm ? bind_.localTagBase : bind_.tagBase);
        const int tag = base - static_cast<int>(st.channel);
        void* req = nullptr;
        int rc = st.kind == StepKind::Send
                     ? tr_.isend(bind_.comm, st.localComm, address(st.src), st.srcType.count,
                                 typeOf(st.srcType), st.peer, tag, &req)
                     : tr_.irecv(bind_.comm, st.localComm, address(st.dst), st.dstType.count,
                                 typeOf(st.dstType), st.peer, tag, &req);
        if (rc != 0) return rc;
        if (bind_.observer && st.kind == StepKind::Send)
            bind_.observer->sent(st.peer, st.localComm, st.srcType.count * tr_.typeInfo(typeOf(st.srcType)).size);
        active_.emplace_back(id, req);
        return 0;
    }
    case StepKind::Copy: {
        int rc = tr_.copy(address(st.src), st.srcType.count, typeOf(st.srcType), address(st.dst),
                          st.dstType.count, typeOf(st.dstType));
        if (rc != 0) return rc;
        complete(id);
        return 0;
    }
    case StepKind::Reduce: {
        int rc = tr_.reduce(bind_.op, address(st.src), address(st.dst), st.srcType.count,
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
        if (int rc = tr_.icollective(fc, &req)) return rc;
        active_.emplace_back(id, req);
        return 0;
    }
    }
    return 0;
}

void Task::complete(StepId id) {
    ++completed_;
    const Schedule& s = *sched_;
    for (uint32_t j = s.dependentBegin[id]; j < s.dependentBegin[id + 1]; ++j) {
        StepId d = s.dependents[j];
        if (--pending_[d] == 0) ready_.push_back(d);
    }
}

void Task::fail(int err) {
    if (status_ == 0) status_ = err;
    for (auto& a : active_)
        if (a.second) abandonActive(a);
    active_.clear();
    activeHead_ = activeHoles_ = activeCursor_ = 0;
    finished_ = true;
}

// Tests active_[i] (live); on completion leaves a hole and completes the step.
bool Task::testAt(size_t i) {
    bool done = false;
    const int rc = sched_->steps[active_[i].first].kind == StepKind::Collective
                       ? tr_.testCollective(active_[i].second, done)
                       : tr_.test(active_[i].second, done);
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
    for (; i < active_.size() && live < kFrontWindow && !finished_; ++i) {
        if (!active_[i].second) continue;
        ++live;
        moved |= testAt(i);
    }
    if (finished_) return true;
    const size_t frontEnd = i;
    if (activeCursor_ < frontEnd || activeCursor_ >= active_.size()) activeCursor_ = frontEnd;
    live = 0;
    for (; activeCursor_ < active_.size() && live < kRotatingWindow && !finished_; ++activeCursor_) {
        if (!active_[activeCursor_].second) continue;
        ++live;
        moved |= testAt(activeCursor_);
    }
    if (finished_) return true;
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
    for (bool moved = true; moved && !finished_;) {
        moved = false;
        while (readyHead_ < ready_.size()) {
            int rc = fire(ready_[readyHead_++]);
            if (rc != 0) {
                fail(rc);
                return true;
            }
            moved = true;
        }
        // Completions are handled in the order messages were posted (within a sweep).
        if (sweep()) moved = true;
        if (finished_) return true;
        if (completed_ == sched_->steps.size()) finished_ = true;
    }
    if (finished_) {
        tempStore_.clear();  // give memory back as soon as the call is over
    }
    return finished_;
}

}  // namespace hieragg
