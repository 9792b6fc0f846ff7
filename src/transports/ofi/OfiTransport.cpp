#include "OfiTransport.hpp"
#include "OfiTransportOp.hpp"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace hieragg::ofi {

namespace {
constexpr int kErr = HIERAGG_ERR_INTERNAL;

// The error code of the entry behind a -FI_EAVAIL of completion or event queue `q`
// (fi_cq_readerr / fi_eq_readerr); 0 if none could be read.
template <class Queue, class ErrEntry>
int pendingError(Queue* q, ssize_t (*readerr)(Queue*, ErrEntry*, uint64_t)) {
    ErrEntry err;
    std::memset(&err, 0, sizeof err);
    readerr(q, &err, 0);
    return err.err;
}
}  // namespace

std::string fiError(int rc) { return fi_strerror(rc < 0 ? -rc : rc); }

OfiTransport::OfiTransport(Transport& pml, std::shared_ptr<Fabric> fabric)
    : ForwardingTransport(pml), pml_(pml), fabric_(std::move(fabric)), caps_(fabric_->caps()) {}

OfiTransport::~OfiTransport() {
    closeFabricObjects();
    // ops_ (declared after the fids' users) owns every operation; the provider is gone now.
    ops_.clear();
    for (void* r : noticeRecvs_)
        if (r) pml_.abandon(r);
    for (auto& o : noticeOut_)
        if (o.first) {
            pml_.abandon(o.first);
            o.second.release();  // the send may still read it: left to it, not freed under it
        }
}

void OfiTransport::closeFabricObjects() {
    // Closing the endpoint first cancels whatever is still in flight.
    if (group_.mc) fi_close(&group_.mc->fid);
    if (group_.members) fi_close(&group_.members->fid);
    if (ep_) fi_close(&ep_->fid);
    if (av_) fi_close(&av_->fid);
    if (cq_) fi_close(&cq_->fid);
    if (eq_) fi_close(&eq_->fid);
    group_ = JoinedGroup{};
    ep_ = nullptr, av_ = nullptr, cq_ = nullptr, eq_ = nullptr;
    chains_.reset();  // its counters, once the endpoint no longer holds them
}

void OfiTransport::closeForExit() {
    std::lock_guard<std::mutex> lock(mutex_);
    closeFabricObjects();
    broken_ = true;
    fabric_.reset();  // the last user closes the domain and fabric (and the provider's threads)
}

std::vector<char> OfiTransport::open(std::string* why) {
    fi_info* info = fabric_->info();
    fi_cq_attr cqAttr;
    std::memset(&cqAttr, 0, sizeof cqAttr);
    cqAttr.format = FI_CQ_FORMAT_CONTEXT;
    fi_eq_attr eqAttr;
    std::memset(&eqAttr, 0, sizeof eqAttr);
    eqAttr.wait_obj = FI_WAIT_NONE;
    fi_av_attr avAttr;
    std::memset(&avAttr, 0, sizeof avAttr);
    avAttr.type = FI_AV_TABLE;
    int rc = fi_endpoint(fabric_->domain(), info, &ep_, nullptr);
    const char* what = "fi_endpoint";
    if (rc == 0) rc = fi_cq_open(fabric_->domain(), &cqAttr, &cq_, nullptr), what = "fi_cq_open";
    if (rc == 0) rc = fi_eq_open(fabric_->fabric(), &eqAttr, &eq_, nullptr), what = "fi_eq_open";
    if (rc == 0) rc = fi_av_open(fabric_->domain(), &avAttr, &av_, nullptr), what = "fi_av_open";
    // Triggered chains report through counters: the queue gets only what asks for it (errors).
    const bool triggered = fabric_->caps().triggered;
    const uint64_t cqFlags = FI_TRANSMIT | FI_RECV | (triggered ? FI_SELECTIVE_COMPLETION : 0);
    if (rc == 0) rc = fi_ep_bind(ep_, &cq_->fid, cqFlags), what = "fi_ep_bind(cq)";
    if (rc == 0 && triggered) {
        chains_ = std::make_unique<TriggeredChains>();
        std::string why2;
        if (!chains_->bind(fabric_->domain(), ep_, std::min(info->tx_attr->size, info->rx_attr->size), &why2)) {
            if (why) *why = why2;
            return {};
        }
    }
    if (rc == 0) rc = fi_ep_bind(ep_, &eq_->fid, 0), what = "fi_ep_bind(eq)";
    if (rc == 0) rc = fi_ep_bind(ep_, &av_->fid, 0), what = "fi_ep_bind(av)";
    if (rc == 0) rc = fi_enable(ep_), what = "fi_enable";
    std::vector<char> addr(256);
    size_t len = addr.size();
    if (rc == 0) rc = fi_getname(&ep_->fid, addr.data(), &len), what = "fi_getname";
    if (rc != 0) {
        if (why) *why = std::string(what) + ": " + fiError(rc);
        return {};
    }
    addr.resize(len);
    return addr;
}

bool OfiTransport::join(const std::vector<std::vector<char>>& addresses, int me, double timeoutSec,
                        std::string* why, const std::function<bool(std::string*)>& giveUp) {
    const size_t n = addresses.size();
    const size_t len = addresses.at(0).size();
    std::vector<char> flat;
    for (const auto& a : addresses) {
        if (a.size() != len) {
            if (why) *why = "leaders' addresses differ in length";
            return false;
        }
        flat.insert(flat.end(), a.begin(), a.end());
    }
    std::vector<fi_addr_t> ids(n, FI_ADDR_NOTAVAIL);
    int rc = fi_av_insert(av_, flat.data(), n, ids.data(), 0, nullptr);
    if (rc != static_cast<int>(n)) {
        if (why) *why = "fi_av_insert: " + (rc < 0 ? fiError(rc) : std::to_string(rc) + " of " + std::to_string(n));
        return false;
    }
    // Members are numbered by their place in the address vector: mine must be `me`.
    if (ids[me] != static_cast<fi_addr_t>(me)) {
        if (why) *why = "address vector numbering differs from the leader order";
        return false;
    }
    if (chains_) {
        // Triggered chains address the members directly: no group to join.
        chains_->setMembers(std::vector<uint64_t>(ids.begin(), ids.end()), me);
        caps_.members = static_cast<int>(n);
        return true;
    }
    fi_av_set_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.count = n;
    attr.start_addr = 0;
    attr.end_addr = n - 1;
    attr.stride = 1;
    rc = fi_av_set(av_, &attr, &group_.members, nullptr);
    fi_addr_t all = FI_ADDR_NOTAVAIL;
    if (rc == 0) rc = fi_av_set_addr(group_.members, &all);
    if (rc == 0) rc = fi_join_collective(ep_, all, group_.members, 0, &group_.mc, this);
    if (rc != 0) {
        if (why) *why = "fi_join_collective: " + fiError(rc);
        return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSec);
    for (;;) {
        fi_cq_entry done[8];
        ssize_t got = fi_cq_read(cq_, done, 8);
        if (got == -FI_EAVAIL) {
            const int err = pendingError(cq_, fi_cq_readerr);
            if (why) *why = "join: error completion: " + fiError(err);
            return false;
        }
        uint32_t event = 0;
        fi_eq_entry entry;
        ssize_t ev = fi_eq_read(eq_, &event, &entry, sizeof entry, 0);
        if (ev > 0 && event == FI_JOIN_COMPLETE) break;
        if (ev == -FI_EAVAIL) {
            const int err = pendingError(eq_, fi_eq_readerr);
            if (why) *why = "join: " + fiError(err);
            return false;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            char secs[32];
            std::snprintf(secs, sizeof secs, "%g", timeoutSec);
            if (why) *why = std::string("join did not complete within ") + secs + " s (coll_hieragg_ofi_join_timeout)";
            return false;
        }
        if (giveUp && giveUp(why)) return false;
        pml_.progress();
    }
    group_.addr = fi_mc_addr(group_.mc);
    caps_.members = static_cast<int>(n);
    return true;
}

int OfiTransport::issue(Op& op) {
    const FabricCollective& w = op.what;
    ssize_t rc = 0;
    switch (w.kind) {
    case FabricKind::Barrier:
        rc = fi_barrier(ep_, group_.addr, &op.ctx);
        break;
    case FabricKind::Bcast:
        rc = fi_broadcast(ep_, op.fab.data(), w.count, nullptr, group_.addr, static_cast<fi_addr_t>(w.root), FI_UINT8,
                          0, &op.ctx);
        break;
    case FabricKind::Allreduce:
        rc = fi_allreduce(ep_, op.in.data(), w.count, nullptr, op.fab.data(), nullptr, group_.addr,
                          static_cast<fi_datatype>(fiDatatype(w.elem)), static_cast<fi_op>(fiOp(w.op)), 0,
                          &op.ctx);
        break;
    case FabricKind::TriggeredChainBcast: {
        // The chain moves the operation's own buffers (the root's kept input, the others'
        // fab), never the task's, so a call given up after a failure cannot touch memory
        // the task has released.
        FabricCollective own = w;
        own.dst = w.root == rc_.group.me ? op.in.data() : op.fab.data();
        if (chains_->start(own, &op.chain) != 0) rc = -FI_EIO;
        break;
    }
    }
    return static_cast<int>(rc);
}

void OfiTransport::issueReady() {
    while (!queued_.empty() && !broken_) {
        // The current ticket's operation, wherever it waits: a later call's may have been
        // queued first (a call's operations are chained, so it has one queued at a time).
        auto it = queued_.begin();
        while (it != queued_.end() && (*it)->what.ticket != serving_) ++it;
        if (it == queued_.end()) return;
        Op* op = *it;
        // Operations get their number in issue order, which is the same on every leader.
        const uint64_t seq = nextSeq_;
        const bool inject = !op->injectChecked && injectNow();
        op->injectChecked = true;
        int rc = 0;
        if (fallbackFrom_ > seq && !inject) {
            rc = issue(*op);
            if (rc == -FI_EAGAIN) return;
        }
        queued_.erase(it);
        op->issued = true;
        op->seq = nextSeq_++;
        if (op->what.lastOfTicket) ++serving_;
        if (fallbackFrom_ <= seq) {
            runOverPml(*op);
        } else if (inject && rc_.injectHang) {
            op->onFabric = true;  // never started, so it never completes: the timeout finds it
            op->issuedAt = std::chrono::steady_clock::now();
        } else if (inject) {
            originate(seq, kFailInjected, "coll_hieragg_ofi_inject_error");
        } else if (rc != 0) {
            if (recovery_) {
                originate(seq, kFailError, std::string(fabricName(op->what.kind)) + ": " + fiError(rc));
            } else {
                op->err = kErr;
                broken_ = true;  // the members' order is lost
            }
        } else {
            op->onFabric = true;
            op->issuedAt = std::chrono::steady_clock::now();
        }
    }
}

void OfiTransport::poll() {
    if (!cq_) return;  // closed for exit
    if (chains_) return pollChains();
    fi_cq_entry done[16];
    for (;;) {
        ssize_t got = fi_cq_read(cq_, done, 16);
        if (got == -FI_EAVAIL) {
            fi_cq_err_entry err;
            std::memset(&err, 0, sizeof err);
            if (fi_cq_readerr(cq_, &err, 0) > 0 && err.op_context) {
                Op* op = reinterpret_cast<Op*>(err.op_context);
                op->onFabric = false;
                if (recovery_) {
                    // Already re-run over the PML if it is at or past the fallback point.
                    if (op->seq < fallbackFrom_)
                        originate(op->seq, kFailError, "error completion: " + fiError(err.err));
                } else {
                    op->err = kErr;
                    broken_ = true;  // this leader leaves the group's sequence: refuse the rest
                }
            }
            continue;
        }
        if (got <= 0) return;
        for (ssize_t i = 0; i < got; ++i) {
            Op* op = reinterpret_cast<Op*>(done[i].op_context);
            if (!op) continue;
            op->onFabric = false;
            op->fabricDone = true;
        }
    }
}

void OfiTransport::pollChains() {
    chains_->drain(cq_);  // error completions fail the active call
    chains_->progress();
    for (auto& op : ops_) {
        if (!op->chain) continue;
        bool done = false;
        const int rc = chains_->test(op->chain, done);  // releases a finished call
        if (!done) continue;
        op->chain = nullptr;
        op->onFabric = false;
        if (rc == 0) {
            op->fabricDone = true;
        } else if (recovery_) {
            // Already re-run over the PML if it is at or past the fallback point.
            if (op->seq < fallbackFrom_) originate(op->seq, kFailError, "triggered chain: error on the endpoint");
        } else {
            op->err = kErr;
            broken_ = true;
        }
    }
}

void OfiTransport::progress() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        poll();
        recover();
        issueReady();
    }
    pml_.progress();
}

int OfiTransport::icollective(const FabricCollective& what, void** req) {
    std::lock_guard<std::mutex> lock(mutex_);
    // A transport runs either the provider's collectives or triggered chains (chains_).
    const bool chain = what.kind == FabricKind::TriggeredChainBcast;
    if (chain ? !chains_ : (chains_ || !group_.mc)) return kErr;
    if (broken_) return kErr;
    try {
        auto op = std::make_unique<Op>();
        std::memset(&op->ctx, 0, sizeof op->ctx);
        op->what = what;
        // The input is kept (and the fabric writes only the op's own buffer) so the
        // operation can be re-run over the PML, or served to the others, after a failure.
        const bool bcast = what.kind == FabricKind::Bcast || chain;
        const size_t bytes = what.kind == FabricKind::Allreduce ? what.count * elemBytes(what.elem)
                             : bcast                            ? what.count
                                                                : 0;
        if (what.kind == FabricKind::Allreduce) op->in.assign(static_cast<const char*>(what.src),
                                                              static_cast<const char*>(what.src) + bytes);
        if (bcast && what.root == rc_.group.me)
            op->in.assign(static_cast<const char*>(what.dst), static_cast<const char*>(what.dst) + bytes);
        // A chain's root sends from `in` and receives nothing.
        if (!(chain && !op->in.empty()))
            op->fab = what.kind == FabricKind::Bcast && !op->in.empty() ? op->in : std::vector<char>(bytes);
        keptBytes_ += op->in.size();
        *req = op.get();
        queued_.push_back(op.get());
        ops_.push_back(std::move(op));
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    }
    issueReady();
    return 0;
}

int OfiTransport::testCollective(void* req, bool& done) {
    std::lock_guard<std::mutex> lock(mutex_);
    poll();
    recover();
    issueReady();
    Op* op = static_cast<Op*>(req);
    done = false;
    int err = op->err;
    const std::vector<char>* result = nullptr;
    if (err != 0) {
        done = true;
    } else if (op->fabricDone) {
        done = true;
        result = &op->fab;
    } else if (op->pml && op->pmlDone) {
        done = true;
        result = &op->pml->result();
    } else if (broken_ && !op->issued) {
        done = true;
        err = kErr;
    }
    if (!done) return 0;
    if (err == 0 && result && op->what.kind != FabricKind::Barrier && !result->empty())
        std::memcpy(op->what.dst, result->data(), result->size());
    release(*op);
    return err;
}

void OfiTransport::abandonCollective(void* req) {
    std::lock_guard<std::mutex> lock(mutex_);
    Op* op = static_cast<Op*>(req);
    if (op->chain) {
        chains_->abandon(op->chain);  // its buffers stay with the op (onFabric) until close
        op->chain = nullptr;
    }
    const bool finished = op->err != 0 || op->fabricDone || (op->pml && op->pmlDone);
    if (!op->issued)
        for (auto it = queued_.begin(); it != queued_.end(); ++it)
            if (*it == op) {
                queued_.erase(it);
                break;
            }
    release(*op);
    if (!finished) broken_ = true;  // the members' order is lost
}

}  // namespace hieragg::ofi
