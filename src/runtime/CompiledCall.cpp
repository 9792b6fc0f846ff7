#include "CompiledCall.hpp"

#include <cstring>

namespace hieragg {

void CompiledCall::finish(int status) {
    // MPI_T: the call's sends count when it ends, all of them together (the counters' totals
    // folded once) when it succeeded, else the ones whose post succeeded (fired_), one by one.
    if (status != 0) {
        countFiredSends();
        drain();
    } else if (bind_.observer && sends_) {
        if (batchFor_ != bind_.observer) {
            bind_.observer->prepareSends(sendPeers_, sendBytes_, sends_, batch_);
            batchFor_ = bind_.observer;
        }
        bind_.observer->sentPrepared(batch_);
    }
    if (bind_.observer && tempBytes_) bind_.observer->tempsHeld(-static_cast<long long>(tempBytes_));
    status_ = status;
    finished_ = true;
    running_ = false;
}

// Straight into the PML (PmlDirect): a message's post, the test of its done word and its
// release are inline here, the PML's entry points called through the copy run() took. No
// state of its own (the call's members are read through `cc`): one register more for the
// loops' cursor.
struct CompiledCall::ViaPml {
    static __attribute__((always_inline)) int post(const CompiledCall& cc, const Action& a, char* buf, void* type,
                                                   int tag, void** req) {
        return cc.pmlDirect_.post(a.kind == StepKind::Recv, cc.bind_.comm, buf, a.msgCount, type, a.peer, tag, req);
    }
    static __attribute__((always_inline)) int test(const CompiledCall& cc, void* req, bool& done) {
        return cc.pmlDirect_.test(req, done);
    }
};

// Through the Transport (virtual calls), a request's done word read first where the
// transport has one (Transport::doneWord) so that a request certainly not ended is not tested.
struct CompiledCall::ViaTransport {
    static __attribute__((always_inline)) int post(const CompiledCall& cc, const Action& a, char* buf, void* type,
                                                   int tag, void** req) {
        return a.kind == StepKind::Send
                   ? cc.tr_->isendReleased(cc.bind_.comm, false, buf, a.msgCount, type, a.peer, tag, req)
                   : cc.tr_->irecvReleased(cc.bind_.comm, false, buf, a.msgCount, type, a.peer, tag, req);
    }
    // As ViaPml::test; a failed test counts as ended (the transport released the request).
    static __attribute__((always_inline)) int test(const CompiledCall& cc, void* req, bool& done) {
        if (cc.doneOffset_ &&
            *reinterpret_cast<const void* const volatile*>(static_cast<char*>(req) + cc.doneOffset_) != cc.doneValue_) {
            done = false;  // certainly not ended (Transport::doneWord): no test
            return 0;
        }
        const int rc = cc.tr_->test(req, done);
        if (rc != 0) done = true;
        return rc;
    }
};

template <class Via>
int CompiledCall::postMessage(size_t i) {
    const Action& a = actions_[i];
    // The call's own tag bases (takeTags or start() wrote them): one load fewer.
    const int tag = tags_[a.peerSlot] - static_cast<int>(a.channel);
    void* req = nullptr;
    const int rc = Via::post(*this, a, bases_[a.msgBase] + a.msgOffset, types_[a.msgType], tag, &req);
    if (rc != 0) return rc;  // (a message that ended at once with an error is released too)
    req_[i] = req;
    if (!req) done_ |= uint64_t{1} << i;  // ended inside the post: nothing to test
    return 0;
}

void CompiledCall::countFiredSends() {
    if (!bind_.observer) return;
    for (uint64_t f = fired_; f; f &= f - 1) {
        const Action& a = actions_[__builtin_ctzll(f)];
        if (a.kind == StepKind::Send) bind_.observer->sent(a.peer, false, a.bytes);
    }
}

template <class Via>
int CompiledCall::testPosted() {
    for (uint64_t posted = fired_ & ~done_; posted; posted &= posted - 1) {
        const size_t i = static_cast<size_t>(__builtin_ctzll(posted));
        bool ended = false;
        const int rc = Via::test(*this, req_[i], ended);
        if (!ended) continue;
        req_[i] = nullptr;  // released by the test
        done_ |= uint64_t{1} << i;
        if (rc != 0) return rc;
    }
    return 0;
}

template <class Via>
void CompiledCall::postAll() {
    for (size_t i = 0; i < count_; ++i) {
        if (const int rc = postMessage<Via>(i)) return finish(rc);  // drains the ones posted before it (fired_)
        fired_ |= uint64_t{1} << i;
    }
    // Every message ended inside its post (eager sends, arrived receives): over. Else the
    // ones left are not tested here: each was found not ended by its own post a moment ago,
    // and the caller's wait tests them at its first pass (their completion words say when:
    // mayHaveMoved), so a test now would nearly always find nothing (a leaf's receive).
    if (done_ == all_) finish(0);
}

int CompiledCall::runLocal(const Action& a) {
    if (a.kind == StepKind::Reduce)
        return pml_ ? pml_->reduce(bind_.op, src(a), dst(a), a.srcCount, type(a.srcType))
                    : tr_->reduce(bind_.op, src(a), dst(a), a.srcCount, type(a.srcType));
    if (a.memcpyCopy) {
        char* d = dst(a);
        const char* from = src(a);
        if (a.bytes >= 8 && a.bytes <= 16) {
            // One or two words (an 8-byte scan's input): both loads before the stores, so
            // overlapping buffers move as memmove moves them, without the library call.
            uint64_t head, tail;
            std::memcpy(&head, from, 8);
            std::memcpy(&tail, from + a.bytes - 8, 8);
            std::memcpy(d, &head, 8);
            std::memcpy(d + a.bytes - 8, &tail, 8);
        } else if (a.bytes) {
            std::memmove(d, from, a.bytes);
        }
        return 0;
    }
    return tr_->copy(src(a), a.srcCount, type(a.srcType), dst(a), a.dstCount, type(a.dstType));
}

template <class Via>
void CompiledCall::runStraight() {
    // At most the action before next is in flight (a posted message): every later action
    // waits for it.
    if (next_ > 0 && !(done_ >> (next_ - 1) & 1)) {
        if (const int rc = testPosted<Via>()) return finish(rc);
        if (!(done_ >> (next_ - 1) & 1)) return;
    }
    while (next_ < count_) {
        const size_t i = next_++;
        const Action& a = actions_[i];
        const uint64_t bit = uint64_t{1} << i;
        if (a.kind == StepKind::Send || a.kind == StepKind::Recv) {
            if (const int rc = postMessage<Via>(i)) return finish(rc);  // not fired: MPI_T counts fired_ sends
            fired_ |= bit;
            // Not ended inside its post: poll() tests it (the test above) when its
            // completion word says it may have ended; testing it now would find nothing.
            if (!(done_ & bit)) return;
        } else {
            if (const int rc = runLocal(a)) return finish(rc);
            fired_ |= bit;
            done_ |= bit;
        }
    }
    finish(0);
}

template <class Via>
void CompiledCall::runOrdered() {
    for (;;) {
        // Fire from next on while the next action's dependencies are done: a later action
        // waits for them too (ordered()), so none is ready before it.
        while (next_ < count_ && !(actions_[next_].deps & ~done_)) {
            const size_t i = next_++;
            const Action& a = actions_[i];
            const uint64_t bit = uint64_t{1} << i;
            if (a.kind == StepKind::Send || a.kind == StepKind::Recv) {
                if (const int rc = postMessage<Via>(i)) return finish(rc);  // not fired: MPI_T counts fired_ sends
            } else {
                if (const int rc = runLocal(a)) return finish(rc);
                done_ |= bit;
            }
            fired_ |= bit;
        }
        if (done_ == all_) return finish(0);
        // Test every posted message once; only a completion can make the next action ready.
        const uint64_t before = done_;
        if (const int rc = testPosted<Via>()) return finish(rc);
        if (done_ == before) return;  // poll() goes on from here
    }
}

int CompiledCall::start(Transport& tr, const Binding& b) {
    // The caller's tag bases may live on its stack: actions fired later (from poll) read
    // this call's own copy (takeTags writes it in place).
    if (b.peerTagBase && b.peerTagBase != tags_)
        for (size_t i = 0; i < peerSlots_; ++i) tags_[i] = b.peerTagBase[i];
    bind_ = b;
    bind_.peerTagBase = tags_;
    types_[kPackedType] = b.packed;
    return startBound(tr, b.sbuf, b.rbuf, b.stype, b.rtype, b.op);
}

template <class Via>
void CompiledCall::step(bool first) {
    if (flat_) {
        if (first)
            postAll<Via>();
        else
            testFlat<Via>();
    } else if (straight_) {
        runStraight<Via>();
    } else if (ordered_) {
        runOrdered<Via>();
    } else {
        advance<Via>(first ? all_ : 0);  // after the start only a message can have ended
    }
}

int CompiledCall::run(Transport& tr) {
    if (tr_ != &tr) {
        tr_ = &tr;
        pml_ = dynamic_cast<PmlTransport*>(&tr);
        const PmlDirect* d = pml_ ? pml_->direct() : nullptr;
        direct_ = d != nullptr;
        if (d) pmlDirect_ = *d;
        if (!tr.doneWord(doneOffset_, doneValue_)) doneOffset_ = 0;
    }
    fired_ = done_ = 0;
    next_ = 0;
    status_ = 0;
    finished_ = false;
    running_ = true;
    if (bind_.observer && tempBytes_) bind_.observer->tempsHeld(static_cast<long long>(tempBytes_));
    if (count_ == 0) {
        finish(0);
        return 0;
    }
    if (direct_)
        step<ViaPml>(true);
    else
        step<ViaTransport>(true);
    return status_;
}

bool CompiledCall::poll() {
    if (!finished_) {
        if (direct_)
            step<ViaPml>(false);
        else
            step<ViaTransport>(false);
    }
    return finished_;
}

template <class Via>
void CompiledCall::testFlat() {
    if (const int rc = testPosted<Via>())
        finish(rc);
    else if (done_ == all_)
        finish(0);
}

template <class Via>
void CompiledCall::advance(uint64_t wake) {
    for (;;) {
        // Fire what is ready among the woken actions. An action is woken when it may have
        // become ready: at the start (every action), when an action it depends on is done,
        // when the message before it on its pair, kind and channel was fired. One that is
        // still not ready is woken again by its next such event, so each action is looked
        // at once per event, not once per pass over the call.
        while (const uint64_t look = wake & ~fired_) {
            const size_t i = static_cast<size_t>(__builtin_ctzll(look));
            const uint64_t bit = uint64_t{1} << i;
            wake &= ~bit;
            const Action& a = actions_[i];
            if ((a.deps & ~done_) || (a.after & ~fired_)) continue;
            // A message is posted here (tested right after this pass of firing); a local
            // step (copy, reduction) runs here and is done at once; a join (Nop) never
            // reaches a compiled call (dropJoins).
            int rc = 0;
            if (a.kind == StepKind::Send || a.kind == StepKind::Recv) {
                rc = postMessage<Via>(i);
            } else if (a.kind == StepKind::Copy || a.kind == StepKind::Reduce) {
                rc = runLocal(a);
                if (rc == 0) done_ |= bit;
            } else if (a.kind == StepKind::Nop) {
                done_ |= bit;
            } else {
                rc = HIERAGG_ERR_INTERNAL;  // an offloaded collective: never compiled
            }
            if (rc != 0) return finish(rc);  // it did not start (MPI_T counts fired_ sends)
            fired_ |= bit;
            wake |= followers_[i] | (done_ & bit ? dependents_[i] : 0);
        }
        // Test every posted message once; only a completion can unblock more.
        const uint64_t before = done_;
        if (const int rc = testPosted<Via>()) return finish(rc);
        for (uint64_t ended = done_ & ~before; ended; ended &= ended - 1)
            wake |= dependents_[__builtin_ctzll(ended)];
        if (done_ == all_) return finish(0);
        if (done_ == before) return;
    }
}

void CompiledCall::drain() {
    // A failed call's messages (a process failure under ULFM, abi.h cancel_failed): the
    // ones a cancel cannot end (a send to a live peer, a receive already matched) may
    // still move data into the arena or the caller's buffers, so this blocking call
    // tests them until they end, as Task::drain does and Open MPI's own collectives.
    uint64_t live = 0;
    for (uint64_t posted = fired_ & ~done_; posted; posted &= posted - 1) {
        const size_t i = static_cast<size_t>(__builtin_ctzll(posted));
        if (req_[i] && !tr_->cancelFailed(req_[i])) live |= uint64_t{1} << i;
        else req_[i] = nullptr;
    }
    while (live) {
        for (uint64_t l = live; l; l &= l - 1) {
            const size_t i = static_cast<size_t>(__builtin_ctzll(l));
            bool ended = false;
            if (tr_->test(req_[i], ended) != 0 || ended) {  // either way it is released
                req_[i] = nullptr;
                live &= ~(uint64_t{1} << i);
            }
        }
        if (live) tr_->progress();
    }
}

}  // namespace hieragg
