#include "CompiledCall.hpp"

#include <cstring>

namespace hieragg {

namespace {
constexpr size_t kTempAlign = 64;  // as the Task's arena aligns its temporaries
size_t alignedTemp(size_t bytes) { return ((bytes ? bytes : 1) + kTempAlign - 1) / kTempAlign * kTempAlign; }

// One element of the layout lies in [0, size) without holes: count elements are
// count * size contiguous bytes.
bool contiguous(const hieragg_dtype_info& t) {
    return t.lb == 0 && t.true_lb == 0 && t.extent == static_cast<ptrdiff_t>(t.size) &&
           t.true_extent == static_cast<ptrdiff_t>(t.size);
}
}  // namespace

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

bool CompiledCall::compile(std::shared_ptr<const Schedule> s, const hieragg_dtype_info& stype,
                           const hieragg_dtype_info& rtype, const char** why) {
    sched_.reset();
    count_ = 0;
    all_ = 0;
    flat_ = straight_ = ordered_ = false;
    tempBytes_ = 0;
    sends_ = 0;
    batchFor_ = nullptr;
    peerSlots_ = peerBound_ = 0;
    auto decline = [&](const char* reason) {
        if (why) *why = reason;
        return false;
    };
    if (!s) return decline("no schedule");
    if (!s->pipelines.empty()) return decline("a fragment template");
    if (s->steps.size() > kMaxActions) return decline("more steps than a compiled call holds");
    if (s->peers.size() > kMaxActions || !s->localPeers.empty()) return decline("too many peers or a local group");
    for (const int p : s->peers)
        if (p < 0) return decline("a negative peer");
    size_t at = 0;
    ptrdiff_t tempOrigin[kMaxActions];
    for (size_t i = 0; i < s->temps.size(); ++i) {
        const size_t need = alignedTemp(s->temps[i].bytes);
        if (i >= kMaxActions || at + need > kArenaBytes) return decline("temporaries over the compiled call's arena");
        tempOrigin[i] = static_cast<ptrdiff_t>(at) + s->temps[i].bias;
        at += need;
    }
    hieragg_dtype_info packed{};
    packed.size = 1;
    packed.extent = packed.true_extent = 1;
    const hieragg_dtype_info* layout[3] = {&stype, &rtype, &packed};  // by type slot
    for (size_t i = 0; i < s->steps.size(); ++i) {
        const Step& st = s->steps[i];
        Action& a = actions_[i];
        a = Action{};
        if (st.kind == StepKind::Collective) return decline("an offloaded collective");
        if (st.localComm) return decline("a message inside a local group");
        if (st.srcType.type > kPackedType || st.dstType.type > kPackedType) return decline("per-peer datatypes");
        if ((st.kind == StepKind::Send || st.kind == StepKind::Recv) && st.peerSlot >= s->peers.size())
            return decline("a message to a peer the schedule does not list");
        a.kind = st.kind;
        a.peer = st.peer;
        a.peerSlot = st.peerSlot;
        a.channel = st.channel;
        auto place = [&](const BufRef& b, uint32_t& slot, char*& fixed, ptrdiff_t& offset) {
            slot = b.slot;
            offset = b.offset;
            if (b.slot < kFirstTemp) return true;
            const size_t t = b.slot - kFirstTemp;
            if (t >= s->temps.size()) return false;
            fixed = arena_ + tempOrigin[t] + b.offset;
            return true;
        };
        if (!place(st.src, a.srcSlot, a.srcFixed, a.srcOffset) || !place(st.dst, a.dstSlot, a.dstFixed, a.dstOffset))
            return decline("a buffer slot the schedule does not hold");
        if (st.kind == StepKind::Send || st.kind == StepKind::Recv) {
            const bool send = st.kind == StepKind::Send;
            const BufRef& m = send ? st.src : st.dst;
            a.msgBase = m.slot < kFirstTemp ? m.slot : kArenaBase;
            a.msgOffset = m.slot < kFirstTemp ? m.offset : tempOrigin[m.slot - kFirstTemp] + m.offset;
            a.msgCount = send ? st.srcType.count : st.dstType.count;
            a.msgType = send ? st.srcType.type : st.dstType.type;
        }
        a.srcCount = st.srcType.count;
        a.dstCount = st.dstType.count;
        a.srcType = st.srcType.type;
        a.dstType = st.dstType.type;
        const hieragg_dtype_info& sl = *layout[a.srcType];
        const hieragg_dtype_info& dl = *layout[a.dstType];
        if (st.kind == StepKind::Send) a.bytes = a.srcCount * sl.size;
        if (st.kind == StepKind::Copy && contiguous(sl) && contiguous(dl) && a.srcCount * sl.size == a.dstCount * dl.size) {
            a.memcpyCopy = true;
            a.bytes = a.srcCount * sl.size;
        }
        for (uint32_t d = 0; d < st.depCount; ++d) {
            const StepId dep = s->deps[st.depBegin + d];
            if (dep < 0 || static_cast<size_t>(dep) >= s->steps.size()) return decline("a dependency outside the schedule");
            a.deps |= uint64_t{1} << dep;
        }
        // Messages of one pair, kind and channel keep the schedule's order of posting
        // (MPI matches them in that order), whatever completes first.
        if (st.kind == StepKind::Send || st.kind == StepKind::Recv)
            for (size_t j = 0; j < i; ++j)
                if (actions_[j].kind == st.kind && actions_[j].peer == st.peer && actions_[j].channel == st.channel)
                    a.after |= uint64_t{1} << j;
    }
    count_ = dropJoins(s->steps.size());
    for (size_t i = 0; i < count_; ++i) dependents_[i] = followers_[i] = 0;
    for (size_t i = 0; i < count_; ++i)
        for (size_t j = 0; j < count_; ++j) {
            if (actions_[i].deps >> j & 1) dependents_[j] |= uint64_t{1} << i;
            if (actions_[i].after >> j & 1) followers_[j] |= uint64_t{1} << i;
        }
    all_ = count_ == kMaxActions ? ~uint64_t{0} : (uint64_t{1} << count_) - 1;
    // Only messages, none waiting for another action: posting them all in the schedule's
    // order is what the firing loop would do (each pair's order included), so start() does
    // just that and poll() only tests.
    flat_ = count_ > 0;
    for (size_t i = 0; i < count_; ++i)
        if ((actions_[i].kind != StepKind::Send && actions_[i].kind != StepKind::Recv) || actions_[i].deps) flat_ = false;
    // Straight: every action's dependencies reach the action before it (so all earlier
    // ones): the firing loop would fire them in order, each once the one before is done.
    // Ordered: every later action waits (directly or through others) for each dependency of
    // an earlier one, so while an action is not ready no later one is: firing in order, each
    // once its dependencies are done, fires what the loop would, when it would.
    if (!flat_ && count_ > 0) {
        uint64_t reach[kMaxActions];  // per action: every action it waits for, directly or not
        straight_ = true;
        for (size_t i = 0; i < count_; ++i) {
            reach[i] = actions_[i].deps;
            for (uint64_t d = actions_[i].deps; d; d &= d - 1) reach[i] |= reach[__builtin_ctzll(d)];
            if (i > 0 && !(reach[i] >> (i - 1) & 1)) straight_ = false;
        }
        if (!straight_) {
            ordered_ = true;
            uint64_t waitedByLater = ~uint64_t{0};  // what every action after i waits for
            for (size_t i = count_; i-- > 0;) {
                if (actions_[i].deps & ~waitedByLater) {
                    ordered_ = false;
                    break;
                }
                waitedByLater &= reach[i];
            }
        }
    }
    for (size_t i = 0; i < count_; ++i)
        if (actions_[i].kind == StepKind::Send) {
            sendPeers_[sends_] = actions_[i].peer;
            sendBytes_[sends_++] = actions_[i].bytes;
        }
    tempBytes_ = s->tempBytes();
    for (const int p : s->peers) {
        peers_[peerSlots_++] = static_cast<uint32_t>(p);
        if (static_cast<uint32_t>(p) >= peerBound_) peerBound_ = static_cast<uint32_t>(p) + 1;
    }
    bases_[kArenaBase] = arena_;
    sched_ = std::move(s);
    return true;
}

size_t CompiledCall::dropJoins(size_t n) {
    // A join (Nop) is done as soon as it is ready: whoever waits for it waits for what it
    // waits for. The schedule's dependencies form a DAG, so the substitution ends.
    uint64_t joins = 0;
    for (size_t i = 0; i < n; ++i)
        if (actions_[i].kind == StepKind::Nop) joins |= uint64_t{1} << i;
    if (!joins) return n;
    for (size_t i = 0; i < n; ++i)
        while (const uint64_t j = actions_[i].deps & joins) {
            const size_t k = static_cast<size_t>(__builtin_ctzll(j));
            actions_[i].deps = (actions_[i].deps & ~(uint64_t{1} << k)) | actions_[k].deps;
        }
    // The other actions move down, keeping their order; their masks follow them.
    size_t to[kMaxActions];
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) to[i] = joins >> i & 1 ? kMaxActions : kept++;
    auto remap = [&](uint64_t m) {
        uint64_t out = 0;
        for (; m; m &= m - 1) out |= uint64_t{1} << to[__builtin_ctzll(m)];
        return out;
    };
    for (size_t i = 0; i < n; ++i) {
        if (to[i] == kMaxActions) continue;
        Action a = actions_[i];
        a.deps = remap(a.deps);
        a.after = remap(a.after);  // messages only: never a join
        actions_[to[i]] = a;
    }
    return kept;
}

int CompiledCall::postMessage(size_t i) {
    const Action& a = actions_[i];
    // The call's own tag bases (takeTags or start() wrote them): one load fewer.
    const int tag = tags_[a.peerSlot] - static_cast<int>(a.channel);
    void* req = nullptr;
    const int rc = pml_ ? post(*pml_, a, tag, &req) : post(*tr_, a, tag, &req);
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

int CompiledCall::testPosted() {
    for (uint64_t posted = fired_ & ~done_; posted; posted &= posted - 1) {
        const size_t i = static_cast<size_t>(__builtin_ctzll(posted));
        if (doneOffset_ && *reinterpret_cast<const void* const volatile*>(static_cast<char*>(req_[i]) + doneOffset_) !=
                               doneValue_)
            continue;  // certainly not ended (Transport::doneWord): no test
        bool done = false;
        const int rc = test(req_[i], done);
        if (rc != 0 || done) {
            req_[i] = nullptr;  // released by the test
            done_ |= uint64_t{1} << i;
        }
        if (rc != 0) return rc;
    }
    return 0;
}

void CompiledCall::postAll() {
    for (size_t i = 0; i < count_; ++i) {
        if (const int rc = postMessage(i)) {
            finish(rc);  // drains the ones posted before it (fired_)
            return;
        }
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

void CompiledCall::runStraight() {
    // At most the action before next_ is in flight (a posted message): every later action
    // waits for it.
    if (next_ > 0 && !(done_ >> (next_ - 1) & 1)) {
        if (const int rc = testPosted()) return finish(rc);
        if (!(done_ >> (next_ - 1) & 1)) return;
    }
    while (next_ < count_) {
        const size_t i = next_++;
        const Action& a = actions_[i];
        const uint64_t bit = uint64_t{1} << i;
        if (a.kind == StepKind::Send || a.kind == StepKind::Recv) {
            if (const int rc = postMessage(i)) return finish(rc);  // not fired: MPI_T counts fired_ sends
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

void CompiledCall::runOrdered() {
    for (;;) {
        // Fire from next_ on while the next action's dependencies are done: a later action
        // waits for them too (ordered()), so none is ready before it.
        while (next_ < count_ && !(actions_[next_].deps & ~done_)) {
            const size_t i = next_++;
            const Action& a = actions_[i];
            const uint64_t bit = uint64_t{1} << i;
            if (a.kind == StepKind::Send || a.kind == StepKind::Recv) {
                if (const int rc = postMessage(i)) return finish(rc);  // not fired: MPI_T counts fired_ sends
            } else {
                if (const int rc = runLocal(a)) return finish(rc);
                done_ |= bit;
            }
            fired_ |= bit;
        }
        if (done_ == all_) return finish(0);
        // Test every posted message once; only a completion can make the next action ready.
        const uint64_t before = done_;
        if (const int rc = testPosted()) return finish(rc);
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

int CompiledCall::run(Transport& tr) {
    if (tr_ != &tr) {
        tr_ = &tr;
        pml_ = dynamic_cast<PmlTransport*>(&tr);
        if (!tr.doneWord(doneOffset_, doneValue_)) doneOffset_ = 0;
    }
    fired_ = done_ = 0;
    status_ = 0;
    finished_ = false;
    running_ = true;
    if (bind_.observer && tempBytes_) bind_.observer->tempsHeld(static_cast<long long>(tempBytes_));
    if (count_ == 0) {
        finish(0);
        return 0;
    }
    if (flat_) {
        postAll();
    } else if (straight_) {
        next_ = 0;
        runStraight();
    } else if (ordered_) {
        next_ = 0;
        runOrdered();
    } else {
        advance(all_);
    }
    return status_;
}

bool CompiledCall::poll() {
    if (!finished_) {
        if (flat_)
            testFlat();
        else if (straight_)
            runStraight();
        else if (ordered_)
            runOrdered();
        else
            advance(0);  // since the last pass only a message can have ended
    }
    return finished_;
}

void CompiledCall::testFlat() {
    if (const int rc = testPosted())
        finish(rc);
    else if (done_ == all_)
        finish(0);
}

int CompiledCall::fire(size_t i) {
    const Action& a = actions_[i];
    const uint64_t bit = uint64_t{1} << i;
    switch (a.kind) {
    case StepKind::Send:
    case StepKind::Recv:
        return postMessage(i);  // (advance posts its messages itself)
    case StepKind::Copy:
    case StepKind::Reduce:
        if (const int rc = runLocal(a)) return rc;
        done_ |= bit;
        return 0;
    case StepKind::Nop:
        done_ |= bit;
        return 0;
    case StepKind::Collective:
        break;  // never compiled
    }
    return HIERAGG_ERR_INTERNAL;
}

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
            fired_ |= bit;
            // A message is posted here (tested right after this pass of firing); a local
            // step (copy, reduction) runs in fire() and is done at once.
            if (const int rc = a.kind == StepKind::Send || a.kind == StepKind::Recv ? postMessage(i) : fire(i)) {
                fired_ &= ~bit;  // it did not start (MPI_T counts fired_ sends)
                finish(rc);
                return;
            }
            wake |= followers_[i] | (done_ & bit ? dependents_[i] : 0);
        }
        // Test every posted message once; only a completion can unblock more.
        const uint64_t before = done_;
        if (const int rc = testPosted()) {
            finish(rc);
            return;
        }
        for (uint64_t ended = done_ & ~before; ended; ended &= ended - 1) wake |= dependents_[__builtin_ctzll(ended)];
        if (done_ == all_) {
            finish(0);
            return;
        }
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
            if (test(req_[i], ended) != 0 || ended) {  // either way it is released
                req_[i] = nullptr;
                live &= ~(uint64_t{1} << i);
            }
        }
        if (live) tr_->progress();
    }
}

}  // namespace hieragg
