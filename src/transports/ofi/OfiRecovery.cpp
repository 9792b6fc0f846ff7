// An offload transport's failure handling (docs/offload.md, "Failure handling"): when a
// fabric operation completes with an error, does not complete within
// coll_hieragg_ofi_op_timeout, or fails by injection, its leader sends a notice to every
// other leader over the PML; every leader then re-runs that operation, and runs every later
// one, over the PML among the same leaders (LeaderOpOverPml). A notice names the first
// operation the sender has not seen complete, so a leader whose fabric operation did
// complete takes part with its kept input. The communicator's plans do not change (ranks
// that are not leaders never see the fabric), so nobody else needs to agree.
#include <rdma/fi_errno.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "OfiTransport.hpp"
#include "OfiTransportOp.hpp"

namespace hieragg::ofi {

namespace {
// Operations kept after their task is done, for a re-run the others may still ask for.
constexpr uint64_t kKeptOps = 32;
// ... and at most this many bytes of their inputs (a triggered chain's root keeps whole
// messages, not 16 KiB pieces): older ones go first.
constexpr size_t kKeptBytes = size_t{64} << 20;
constexpr uint64_t kBackgroundEvery = 64;
// The n-th offloaded operation of this process (coll_hieragg_ofi_inject_error).
std::atomic<uint64_t> gIssued{0};

size_t opBytes(const FabricCollective& w) {
    return w.kind == FabricKind::Allreduce ? w.count * elemBytes(w.elem) : w.kind == FabricKind::Barrier ? 0 : w.count;
}

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}
}  // namespace

const char* fabricName(FabricKind k) {
    switch (k) {
    case FabricKind::Barrier: return "fi_barrier";
    case FabricKind::Bcast: return "fi_broadcast";
    case FabricKind::Allreduce: return "fi_allreduce";
    case FabricKind::TriggeredChainBcast: return "triggered chain";
    }
    return "?";
}

int OfiTransport::enableRecovery(RecoveryConfig cfg) {
    std::lock_guard<std::mutex> lock(mutex_);
    rc_ = std::move(cfg);
    rc_.group.pml = &pml_;
    const size_t n = rc_.group.ranks.size();
    noticeRecvs_.assign(n, nullptr);
    noticeIn_.clear();
    for (size_t m = 0; m < n; ++m) noticeIn_.push_back(std::make_unique<Notice>());
    for (size_t m = 0; m < n; ++m)
        if (static_cast<int>(m) != rc_.group.me)
            if (int rc = postNoticeRecv(m)) return rc;
    recovery_ = true;
    return 0;
}

bool OfiTransport::fellBack() {
    std::lock_guard<std::mutex> lock(mutex_);
    return fallbackFrom_ != UINT64_MAX;
}

int OfiTransport::postNoticeRecv(size_t m) {
    return pml_.irecv(rc_.group.comm, false, noticeIn_[m].get(), sizeof(Notice), pml_.packedType(),
                      rc_.group.ranks[m], rc_.noticeTag, &noticeRecvs_[m]);
}

bool OfiTransport::injectNow() {
    if (!recovery_ || rc_.injectAt == 0 || (rc_.injectRank >= 0 && rc_.injectRank != rc_.worldRank)) return false;
    return gIssued.fetch_add(1) + 1 == rc_.injectAt;
}

void OfiTransport::stopListening() {
    std::lock_guard<std::mutex> lock(mutex_);
    listening_ = false;
    for (void*& r : noticeRecvs_)
        if (r) {
            pml_.abandon(r);  // cancels it: the communicator's last reference may follow
            r = nullptr;
        }
}

void OfiTransport::pollBackground() {
    // PML requests and clocks only (the fabric is read by the tasks that wait on it), and
    // only every kBackgroundEvery-th opal_progress: notices are rare and timeouts are
    // seconds, while opal_progress spins. Runtime::progress calls this from one thread
    // at a time, so the counter needs no lock.
    if (++backgroundTicks_ % kBackgroundEvery != 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    recover();
}

void OfiTransport::recover() {
    if (!recovery_) return;
    // Notices from the other leaders.
    for (size_t m = 0; m < noticeRecvs_.size(); ++m) {
        if (!noticeRecvs_[m]) continue;
        bool done = false;
        if (pml_.test(noticeRecvs_[m], done) != 0) {
            noticeRecvs_[m] = nullptr;
            continue;
        }
        if (!done) continue;
        noticeRecvs_[m] = nullptr;
        Notice n = *noticeIn_[m];
        n.why[sizeof n.why - 1] = 0;
        if (!listening_ || postNoticeRecv(m) != 0) noticeRecvs_[m] = nullptr;
        fallBackFrom(static_cast<uint64_t>(n.seq), n.origin, n.reason, n.why);
    }
    for (auto it = noticeOut_.begin(); it != noticeOut_.end();) {
        bool done = false;
        if (pml_.test(it->first, done) != 0 || done)
            it = noticeOut_.erase(it);
        else
            ++it;
    }
    // An operation the fabric holds for too long.
    if (rc_.opTimeoutSec > 0) {
        const auto now = std::chrono::steady_clock::now();
        for (auto& op : ops_)
            if (op->onFabric && op->seq < fallbackFrom_ &&
                now - op->issuedAt > std::chrono::duration<double>(rc_.opTimeoutSec)) {
                originate(op->seq, kFailTimeout,
                          std::string(fabricName(op->what.kind)) + " did not complete within " +
                              seconds(rc_.opTimeoutSec) + " s (coll_hieragg_ofi_op_timeout)");
                break;
            }
    }
    // Re-runs over the PML, including those only served to the others.
    for (auto& op : ops_) {
        if (!op->pml || op->pmlDone) continue;
        bool done = false;
        if (int rc = op->pml->test(done)) {
            if (op->err == 0 && !op->fabricDone) op->err = rc;
            op->pmlDone = true;
        } else if (done) {
            op->pmlDone = true;
        }
    }
    if (ops_.size() > 2 * kKeptOps || keptBytes_ > kKeptBytes) reclaim();
}

void OfiTransport::originate(uint64_t failedSeq, int reason, const std::string& why) {
    // From the oldest operation this leader has not seen complete: every leader re-runs
    // from there, so nobody waits for a fabric operation this leader gave up.
    uint64_t from = failedSeq;
    for (auto& op : ops_)
        if (op->issued && op->onFabric && !op->fabricDone) from = std::min(from, op->seq);
    if (from >= fallbackFrom_) return;  // already re-running from there
    for (size_t m = 0; m < rc_.group.ranks.size(); ++m) {
        if (static_cast<int>(m) == rc_.group.me) continue;
        auto n = std::make_unique<Notice>();
        std::memset(n.get(), 0, sizeof(Notice));
        n->seq = static_cast<int64_t>(from);
        n->origin = rc_.group.me;
        n->reason = reason;
        std::strncpy(n->why, why.c_str(), sizeof n->why - 1);
        void* req = nullptr;
        if (pml_.isend(rc_.group.comm, false, n.get(), sizeof(Notice), pml_.packedType(), rc_.group.ranks[m],
                       rc_.noticeTag, &req) == 0)
            noticeOut_.emplace_back(req, std::move(n));
    }
    fallBackFrom(from, rc_.group.me, reason, why);
}

void OfiTransport::fallBackFrom(uint64_t seq, int origin, int reason, const std::string& why) {
    if (seq >= fallbackFrom_) return;
    fallbackFrom_ = seq;
    if (rc_.say && !warned_) {
        warned_ = true;
        const int rank = origin >= 0 && static_cast<size_t>(origin) < rc_.group.ranks.size()
                             ? rc_.group.ranks[origin]
                             : -1;
        const char* what = reason == kFailTimeout ? "timed out" : reason == kFailInjected ? "was made to fail" : "failed";
        const std::string msg = "coll_hieragg_offload: an offloaded collective " + std::string(what) +
                                " on leader rank " + std::to_string(rank) + " (" + why + ") at operation " +
                                std::to_string(seq + 1) +
                                " of this communicator's group; its leaders re-run it, and run every later "
                                "one, over point-to-point";
        // One warning per communicator, from its rank 0 (always leader 0), which every
        // notice reaches; the other leaders say it at verbose level 1.
        rc_.say(rc_.group.me == 0 ? 0 : 1, rc_.group.me == 0 ? msg : "hieragg: " + msg);
    }
    for (auto& op : ops_)
        if (op->issued && op->seq >= seq && !op->pml) {
            if (op->chain) {
                // Earlier calls of the chain still complete on the fabric; this one's
                // buffers stay with the op (onFabric) while the provider may use them.
                chains_->giveUp(op->chain);
                op->chain = nullptr;
            }
            runOverPml(*op);
        }
}

void OfiTransport::runOverPml(Op& op) {
    try {
        op.pml = std::make_unique<LeaderOpOverPml>();
    } catch (const std::bad_alloc&) {
        op.err = HIERAGG_ERR_NO_MEM;
        return;
    }
    if (int rc = op.pml->start(rc_.group, op.what, op.seq, op.in.data())) {
        if (!op.fabricDone) op.err = rc;
        op.pmlDone = true;
        return;
    }
    if (rc_.say && op.held && !op.fabricDone)
        rc_.say(2, "hieragg: offload fell back: leader operation " + std::to_string(op.seq + 1) + " (" +
                       fabricName(op.what.kind) + ", " + std::to_string(opBytes(op.what)) +
                       " B) runs over point-to-point");
}

void OfiTransport::release(Op& op) {
    op.held = false;
    if (!op.onFabric) {
        op.fab.clear();
        op.fab.shrink_to_fit();
    }
    if (ops_.size() > 2 * kKeptOps || keptBytes_ > kKeptBytes) reclaim();
}

void OfiTransport::reclaim() {
    // Keep the newest kKeptOps issued operations' inputs (at most kKeptBytes of them, oldest
    // dropped first); drop older ones nobody holds.
    for (auto it = ops_.begin(); it != ops_.end();) {
        Op& op = **it;
        const bool old = op.issued ? op.seq + kKeptOps < nextSeq_ || keptBytes_ > kKeptBytes : broken_;
        if (!op.held && !op.onFabric && (!op.pml || op.pmlDone) && old) {
            keptBytes_ -= op.in.size();
            it = ops_.erase(it);
        } else {
            ++it;
        }
    }
}

}  // namespace hieragg::ofi
