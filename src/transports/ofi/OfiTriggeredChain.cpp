#include "OfiTriggeredChain.hpp"

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <rdma/fi_trigger.h>

#include <algorithm>
#include <cstring>
#include <new>

namespace hieragg::ofi {

namespace {
constexpr int kErr = HIERAGG_ERR_INTERNAL;
constexpr unsigned kSegmentBits = 12;  // kTriggeredMaxSegments = 4096 fits
static_assert(kTriggeredMaxSegments <= (1u << kSegmentBits), "segment index must fit its tag bits");
// Calls are told apart by their ticket (the same on every leader), segments by index.
uint64_t tagOf(uint64_t ticket, size_t segment) {
    return ((ticket & ((uint64_t{1} << 40) - 1)) << kSegmentBits) | segment;
}
}  // namespace

// One broadcast. Its contexts are rings of `window` entries: segment s uses entry
// s % window, reused only once segment s - window's operation completed.
struct TriggeredChains::Call {
    char* buf = nullptr;
    size_t bytes = 0, seg = 0, nseg = 0;
    uint64_t ticket = 0;
    int prev = -1, next = -1;  // member indices (-1: the root / the last)
    size_t recvPosted = 0, sendPosted = 0;
    uint64_t recvBase = 0, sendBase = 0;  // counter values when the call became active
    std::vector<fi_context2> recvCtx;
    std::vector<fi_triggered_context2> sendCtx;
    bool finished = false, abandoned = false;
    int err = 0;
};

TriggeredChains::~TriggeredChains() {
    delete active_;
    for (Call* c : queued_) delete c;
    if (recvCntr_) fi_close(&recvCntr_->fid);
    if (sendCntr_) fi_close(&sendCntr_->fid);
}

bool TriggeredChains::bind(fid_domain* domain, fid_ep* ep, size_t queueDepth, std::string* why) {
    fi_cntr_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.events = FI_CNTR_EVENTS_COMP;
    attr.wait_obj = FI_WAIT_NONE;
    const char* what = "fi_cntr_open";
    int rc = fi_cntr_open(domain, &attr, &recvCntr_, nullptr);
    if (rc == 0) rc = fi_cntr_open(domain, &attr, &sendCntr_, nullptr);
    if (rc == 0) rc = fi_ep_bind(ep, &recvCntr_->fid, FI_RECV), what = "fi_ep_bind(receive counter)";
    if (rc == 0) rc = fi_ep_bind(ep, &sendCntr_->fid, FI_SEND), what = "fi_ep_bind(send counter)";
    if (rc != 0) {
        if (why) *why = std::string(what) + ": " + fi_strerror(-rc);
        return false;
    }
    ep_ = ep;
    // A relay has up to window receives and window sends posted: stay well inside the queues.
    if (queueDepth >= 4) window_ = std::min(kDefaultWindow, queueDepth / 4);
    return true;
}

void TriggeredChains::setMembers(std::vector<uint64_t> members, int me) {
    members_ = std::move(members);
    me_ = me;
}

int TriggeredChains::start(const FabricCollective& w, void** req) {
    const int n = static_cast<int>(members_.size());
    if (broken_ || !ep_ || n < 2 || me_ < 0 || w.root < 0 || w.root >= n || w.count == 0) return kErr;
    Call* c = new (std::nothrow) Call;
    if (!c) return HIERAGG_ERR_NO_MEM;
    c->buf = static_cast<char*>(w.dst);
    c->bytes = w.count;
    c->seg = std::max<size_t>(1, w.segment ? std::min(w.segment, w.count) : w.count);
    // The same on every member (same count and segment): a cut they all agree on.
    c->seg = std::max(c->seg, (w.count + kTriggeredMaxSegments - 1) / kTriggeredMaxSegments);
    c->nseg = (w.count + c->seg - 1) / c->seg;
    c->ticket = w.ticket;
    const int pos = (me_ - w.root + n) % n;  // place in the chain root, root+1, ... (wrapping)
    c->prev = pos > 0 ? (me_ - 1 + n) % n : -1;
    c->next = pos < n - 1 ? (me_ + 1) % n : -1;
    try {
        c->recvCtx.resize(window_);
        c->sendCtx.resize(window_);
        queued_.push_back(c);
    } catch (const std::bad_alloc&) {
        delete c;
        return HIERAGG_ERR_NO_MEM;
    }
    std::memset(c->recvCtx.data(), 0, c->recvCtx.size() * sizeof(fi_context2));
    std::memset(c->sendCtx.data(), 0, c->sendCtx.size() * sizeof(fi_triggered_context2));
    *req = c;
    progress();
    return 0;
}

void TriggeredChains::activate() {
    if (active_ || broken_) return;
    for (auto it = queued_.begin(); it != queued_.end(); ++it) {
        if ((*it)->ticket != serving_) continue;
        Call* c = *it;
        queued_.erase(it);
        // Every earlier call's operations completed: the counters move for this call alone.
        c->recvBase = fi_cntr_read(recvCntr_);
        c->sendBase = fi_cntr_read(sendCntr_);
        active_ = c;
        return;
    }
}

int TriggeredChains::post(Call& c, uint64_t recvDone, uint64_t sendDone) {
    for (;;) {
        bool moved = false;
        const size_t r = c.recvPosted;
        // A relay posts a segment's receive once the previous segment's send is posted.
        if (c.prev >= 0 && r < c.nseg && r < recvDone + window_ && (c.next < 0 || r == c.sendPosted)) {
            iovec iov{c.buf + r * c.seg, std::min(c.seg, c.bytes - r * c.seg)};
            fi_msg_tagged m;
            std::memset(&m, 0, sizeof m);
            m.msg_iov = &iov;
            m.iov_count = 1;
            m.addr = FI_ADDR_UNSPEC;
            m.tag = tagOf(c.ticket, r);
            m.context = &c.recvCtx[r % window_];
            const ssize_t rc = fi_trecvmsg(ep_, &m, 0);
            if (rc == -FI_EAGAIN) return 0;
            if (rc != 0) return kErr;
            ++c.recvPosted;
            moved = true;
        }
        const size_t s = c.sendPosted;
        if (c.next >= 0 && s < c.nseg && s < sendDone + window_ && (c.prev < 0 || s < c.recvPosted)) {
            iovec iov{c.buf + s * c.seg, std::min(c.seg, c.bytes - s * c.seg)};
            fi_msg_tagged m;
            std::memset(&m, 0, sizeof m);
            m.msg_iov = &iov;
            m.iov_count = 1;
            m.addr = members_[c.next];
            m.tag = tagOf(c.ticket, s);
            fi_triggered_context2& t = c.sendCtx[s % window_];
            std::memset(&t, 0, sizeof t);
            uint64_t flags = 0;
            if (c.prev >= 0) {
                // The relay's forward: fired by the provider once segment s has arrived (this
                // call's receives complete in order: one sender, FI_ORDER_SAS).
                t.event_type = FI_TRIGGER_THRESHOLD;
                t.trigger.threshold.cntr = recvCntr_;
                t.trigger.threshold.threshold = c.recvBase + s + 1;
                flags = FI_TRIGGER;
            }
            m.context = &t;
            const ssize_t rc = fi_tsendmsg(ep_, &m, flags);
            if (rc == -FI_EAGAIN) return 0;
            if (rc != 0) return kErr;
            ++c.sendPosted;
            moved = true;
        }
        if (!moved) return 0;
    }
}

void TriggeredChains::finish(Call& c, int err) {
    c.finished = true;
    c.err = err;
    if (&c == active_) {
        active_ = nullptr;
        if (err == 0) ++serving_;
    }
    if (err != 0) broken_ = true;  // the members' tickets can no longer be served in order
    if (c.abandoned) delete &c;
}

void TriggeredChains::progress() {
    activate();
    while (active_) {
        Call& c = *active_;
        const uint64_t recvErrs = fi_cntr_readerr(recvCntr_), sendErrs = fi_cntr_readerr(sendCntr_);
        if (recvErrs != recvErrs_ || sendErrs != sendErrs_) {
            recvErrs_ = recvErrs;
            sendErrs_ = sendErrs;
            finish(c, kErr);
            return;
        }
        const uint64_t recvDone = fi_cntr_read(recvCntr_) - c.recvBase;
        const uint64_t sendDone = fi_cntr_read(sendCntr_) - c.sendBase;
        if ((c.prev < 0 || recvDone >= c.nseg) && (c.next < 0 || sendDone >= c.nseg)) {
            finish(c, 0);
            activate();
            continue;
        }
        // A call given up (or abandoned) posts nothing more: its buffers may be gone.
        if (!c.abandoned && post(c, recvDone, sendDone) != 0) finish(c, kErr);
        return;
    }
}

void TriggeredChains::drain(fid_cq* cq) {
    fi_cq_entry done[16];
    for (;;) {
        const ssize_t got = fi_cq_read(cq, done, 16);
        if (got == -FI_EAVAIL) {
            fi_cq_err_entry err;
            std::memset(&err, 0, sizeof err);
            if (fi_cq_readerr(cq, &err, 0) <= 0) return;
            if (active_) finish(*active_, kErr);
            broken_ = true;
            continue;
        }
        if (got <= 0) return;  // successes carry nothing: the counters tell
    }
}

int TriggeredChains::test(void* req, bool& done) {
    progress();
    Call* c = static_cast<Call*>(req);
    done = c->finished;
    if (!done && broken_ && c != active_) {
        // Never to be served: an earlier call failed or was abandoned.
        for (auto it = queued_.begin(); it != queued_.end(); ++it)
            if (*it == c) {
                queued_.erase(it);
                break;
            }
        c->finished = done = true;
        c->err = kErr;
    }
    if (!done) return 0;
    const int err = c->err;
    delete c;
    return err;
}

void TriggeredChains::abandon(void* req) {
    // The call is released as giveUp releases it; the chain's order is broken for later calls.
    broken_ = true;
    giveUp(req);
}

void TriggeredChains::giveUp(void* req) {
    Call* c = static_cast<Call*>(req);
    if (c->finished) {
        delete c;
        return;
    }
    if (c == active_) {
        c->abandoned = true;  // finish() deletes it once its counters complete it
        return;
    }
    for (auto it = queued_.begin(); it != queued_.end(); ++it)
        if (*it == c) {
            queued_.erase(it);
            break;
        }
    delete c;
}

}  // namespace hieragg::ofi
