#include "hieragg/Task.hpp"

#include <new>

namespace hieragg {

namespace {
constexpr int kErrNoMem = HIERAGG_ERR_NO_MEM;
}

Task::Task(std::shared_ptr<const Schedule> schedule, Transport& transport, TaskBindings bindings)
    : sched_(std::move(schedule)), tr_(transport), bind_(std::move(bindings)) {}

Task::~Task() {
    for (auto& a : active_) tr_.abandon(a.second);
    if (bind_.observer && heldTempBytes_) bind_.observer->tempsHeld(-static_cast<long long>(heldTempBytes_));
}

char* Task::address(const BufRef& b) const {
    return origins_[b.slot] + b.offset;
}

int Task::start() {
    const Schedule& s = *sched_;
    origins_.assign(kFirstTemp + s.temps.size(), nullptr);
    origins_[kSendBuf] = const_cast<char*>(static_cast<const char*>(bind_.sbuf));
    origins_[kRecvBuf] = static_cast<char*>(bind_.rbuf);
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
        const int tag = (st.localComm ? bind_.localTagBase : bind_.tagBase) - static_cast<int>(st.channel);
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
    for (auto& a : active_) tr_.abandon(a.second);
    active_.clear();
    finished_ = true;
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
        for (size_t i = 0; i < active_.size();) {
            bool done = false;
            int rc = tr_.test(active_[i].second, done);
            if (rc != 0) {
                active_.erase(active_.begin() + static_cast<ptrdiff_t>(i));
                fail(rc);
                return true;
            }
            if (done) {
                // Keep posting order: completions are handled in the order messages were posted.
                StepId id = active_[i].first;
                active_.erase(active_.begin() + static_cast<ptrdiff_t>(i));
                complete(id);
                moved = true;
            } else {
                ++i;
            }
        }
        if (completed_ == sched_->steps.size()) finished_ = true;
    }
    if (finished_) {
        tempStore_.clear();  // give memory back as soon as the call is over
    }
    return finished_;
}

}  // namespace hieragg
