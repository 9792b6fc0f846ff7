#include "OffloadSetup.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "Runtime.hpp"
#include "hieragg/OffloadBackend.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/SpaceGroup.hpp"

namespace hieragg {

namespace {
// auto: open the backend only if the cost model itself would pick an offloaded leader
// stage for some probe call on this decomposition (barrier; allreduce of doubles and bcast
// at 8 B and 64 KiB), with a group that could run all of them.
bool modelPicksOffload(const hieragg_comm& c, const hier::CostParams& p, int leaders, size_t segment) {
    OffloadCaps probe;
    probe.barrier = probe.bcast = probe.triggered = true;
    probe.allreduceOps[HIERAGG_ELEM_DOUBLE] = 1u << HIERAGG_OPK_SUM;
    probe.maxCount = probe.maxBytes = SIZE_MAX / 2;
    probe.members = leaders;
    const struct {
        hieragg_coll_kind kind;
        size_t bytes;
    } probes[] = {{HIERAGG_BARRIER, 0}, {HIERAGG_ALLREDUCE, 8}, {HIERAGG_ALLREDUCE, 65536},
                  {HIERAGG_BCAST, 8}, {HIERAGG_BCAST, 65536}, {HIERAGG_BCAST, 4 << 20}};
    for (const auto& pr : probes) {
        CollCall call;
        call.args.kind = pr.kind;
        call.size = c.size;
        call.hierarchy = c.decomp.hierarchy.get();
        call.stageLinks = c.selection.stageLinks.empty() ? nullptr : &c.selection.stageLinks;
        call.segmentBytes = segment ? segment : 64 * 1024;
        const size_t elem = pr.kind == HIERAGG_ALLREDUCE ? 8 : 1;
        call.rtype = call.stype = hieragg_dtype_info{elem, 0, static_cast<ptrdiff_t>(elem), 0,
                                                     static_cast<ptrdiff_t>(elem), 1};
        call.args.rcount = call.args.scount = pr.bytes / elem;
        call.args.op_commutative = 1;
        call.elemKind = HIERAGG_ELEM_DOUBLE;
        call.opKind = HIERAGG_OPK_SUM;
        call.offload = &probe;
        call.fixedOrderRequired = Runtime::instance()->config().reproducible != HIERAGG_REPRODUCIBLE_NONE;
        const hier::Plan plan = hier::choosePlan(call, p);
        const hier::StageChoice& top = plan.stages.back();
        if (plan.mode == hier::Plan::Mode::Levels && top.algo && (top.algo->traits & hier::kTraitFabric))
            return true;
    }
    return false;
}

constexpr int kAddrBytes = 120;

// coll_hieragg_ofi_inject_error = "[hang:]<n>[:<world rank>]" (testing).
void parseInjection(const char* spec, uint64_t& at, int& rank, bool& hang) {
    at = 0;
    rank = -1;
    hang = false;
    if (!spec || !*spec) return;
    if (std::strncmp(spec, "hang:", 5) == 0) hang = true, spec += 5;
    char* end = nullptr;
    const long long n = std::strtoll(spec, &end, 10);
    if (n <= 0) return;
    if (*end == ':') {
        const long r = std::strtol(end + 1, &end, 10);
        if (r < 0) return;
        rank = static_cast<int>(r);
    }
    if (*end != 0) return;
    at = static_cast<uint64_t>(n);
}

// First exchange: every leader's endpoint address (state 1), or its failure (-1);
// non-leaders send state 0.
struct AddressRecord {
    int32_t state;
    int32_t len;
    char addr[kAddrBytes];
};
// Second exchange: whether the join worked, and what the group can run (so that ranks
// that are not leaders choose the same plans as the leaders).
struct JoinRecord {
    int32_t state;  // 1 joined, 0 not a leader, -1 failed
    uint8_t barrier, bcast, triggered, pad;
    uint32_t ops[HIERAGG_ELEM_COUNT];
    uint64_t maxCount, maxBytes;
};
}  // namespace

// What the setup keeps between its stages (owned by c.offload.setup while they run).
struct OffloadSetupState {
    std::vector<int> leaders;
    int me = -1;
    bool explicitAsk = false;
    std::string provider, why;
    std::unique_ptr<OffloadEndpoint> tr;
    std::vector<AddressRecord> addrs;
    std::vector<JoinRecord> joins;
};

namespace {

// The leaders' "I will not join" notices (one int each, on their own tag): every leader
// listens while it waits for the join; one that fails tells every other.
class JoinAbort {
public:
    JoinAbort(hieragg_comm& c, const std::vector<int>& leaders, int me) : c_(c), leaders_(leaders), me_(me) {
        if (me_ < 0) return;
        Transport& pml = Runtime::instance()->transport();
        recvs_.assign(leaders_.size(), nullptr);
        for (size_t m = 0; m < leaders_.size(); ++m)
            if (static_cast<int>(m) != me_ &&
                pml.irecv(c_.comm, false, &sink_, sizeof(int32_t), pml.packedType(), leaders_[m], tag(), &recvs_[m]))
                recvs_[m] = nullptr;
    }
    ~JoinAbort() {
        Transport& pml = Runtime::instance()->transport();
        for (void* r : recvs_)
            if (r) pml.abandon(r);  // cancels the receive: nobody failed
        for (void* r : sends_)
            if (r) pml.abandon(r);  // completes on its own
    }
    // Whether another leader said it will not join (and which, in *why).
    bool heard(std::string* why) {
        Transport& pml = Runtime::instance()->transport();
        for (size_t m = 0; m < recvs_.size(); ++m) {
            bool done = false;
            if (!recvs_[m] || pml.test(recvs_[m], done) != 0 || !done) continue;
            recvs_[m] = nullptr;
            if (why) *why = "leader rank " + std::to_string(leaders_[m]) + " will not join";
            return true;
        }
        return false;
    }
    void tell() {
        Transport& pml = Runtime::instance()->transport();
        for (size_t m = 0; m < leaders_.size(); ++m) {
            void* req = nullptr;
            if (static_cast<int>(m) != me_ &&
                pml.isend(c_.comm, false, &out_, sizeof(int32_t), pml.packedType(), leaders_[m], tag(), &req) == 0)
                sends_.push_back(req);
        }
    }

private:
    static int tag() { return offloadExchangeTagBase(4); }
    hieragg_comm& c_;
    const std::vector<int>& leaders_;
    int me_;
    std::vector<void*> recvs_, sends_;
    // Only the notices' arrival matters; both outlive requests abandoned while in flight.
    static inline int32_t out_ = -1, sink_ = 0;
};

// Point-to-point after all: one warning (explicit ofi) or a verbose line (auto).
void giveUp(hieragg_comm& c, const OffloadSetupState& st, const std::string& why) {
    Runtime& rt = *Runtime::instance();
    const std::string msg = "coll_hieragg_offload=" + std::string(st.explicitAsk ? "ofi" : "auto") +
                            (st.provider.empty() ? "" : " (coll_hieragg_ofi_provider=" + st.provider + ")") +
                            ": " + why + "; this communicator's collectives use point-to-point";
    if (st.explicitAsk && c.worldRank == 0)
        rt.warnOnce(msg);
    else if (c.rank == 0)
        rt.verbose(1, "hieragg: " + msg);
}

// Names every leader that failed, and this rank's own reason when it is one of them.
template <class Failed>
std::string failures(const hieragg_comm& c, const OffloadSetupState& st, Failed failed, const char* what) {
    std::string list;
    bool mine = false;
    for (int r : st.leaders)
        if (failed(r)) {
            list += (list.empty() ? "" : ", ") + std::to_string(r);
            mine |= r == c.rank;
        }
    if (list.empty()) return list;
    return "leader rank " + list + " could not " + what + (mine && !st.why.empty() ? " (here: " + st.why + ")" : "");
}

// Second exchange done: everyone agrees from the same records. The group is used only
// if every leader joined, and only for what every leader's provider offers.
void joinsExchanged(void* ctx, int status) {
    hieragg_comm& c = *static_cast<hieragg_comm*>(ctx);
    std::lock_guard<CommMutex> lock(c.mutex);
    std::shared_ptr<OffloadSetupState> st = c.offload.setup;
    if (status != 0 || !st) return finishDecomposition(c, status);
    Runtime& rt = *Runtime::instance();
    const std::string joinFailed = failures(c, *st, [&](int r) { return st->joins[r].state != 1; }, "join the group");
    if (!joinFailed.empty()) {
        giveUp(c, *st, joinFailed);
        return finishDecomposition(c, 0);
    }
    OffloadCaps caps;
    caps.barrier = caps.bcast = caps.triggered = true;
    caps.maxCount = caps.maxBytes = SIZE_MAX;
    for (int e = 0; e < HIERAGG_ELEM_COUNT; ++e) caps.allreduceOps[e] = ~0u;
    for (int r : st->leaders) {
        const JoinRecord& j = st->joins[r];
        caps.barrier = caps.barrier && j.barrier;
        caps.bcast = caps.bcast && j.bcast;
        caps.triggered = caps.triggered && j.triggered;
        caps.maxCount = std::min<size_t>(caps.maxCount, j.maxCount);
        caps.maxBytes = std::min<size_t>(caps.maxBytes, j.maxBytes);
        for (int e = 0; e < HIERAGG_ELEM_COUNT; ++e) caps.allreduceOps[e] &= j.ops[e];
    }
    caps.members = static_cast<int>(st->leaders.size());
    caps.preferred = st->explicitAsk;
    if (st->tr) {
        // Failure notices and re-runs during calls (docs/offload.md, "Failure handling").
        OffloadRecovery rec;
        rec.comm = c.comm;
        rec.leaders = st->leaders;
        rec.me = st->me;
        rec.rerunTagBase = offloadExchangeTagBase(3);
        rec.noticeTag = offloadExchangeTagBase(2);
        rec.worldRank = c.worldRank;
        rec.opTimeoutSec = rt.config().ofi_op_timeout;
        parseInjection(rt.config().ofi_inject_error, rec.injectAt, rec.injectRank, rec.injectHang);
        if (rec.injectAt == 0 && *rt.config().ofi_inject_error && c.worldRank == 0)
            rt.warnOnce("coll_hieragg_ofi_inject_error='" + std::string(rt.config().ofi_inject_error) +
                        "' is not [hang:]<n>[:<world rank>]; nothing is injected");
        rec.say = [](int level, const std::string& msg) {
            Runtime& r = *Runtime::instance();
            if (level == 0) r.warn(msg);
            else r.verbose(level, msg);
        };
        if (int rc = st->tr->enableRecovery(rec)) return finishDecomposition(c, rc);
    }
    c.offload.caps = caps;
    c.offload.on = true;
    c.offload.transport = std::move(st->tr);
    if (c.offload.transport) rt.addPoller(c.offload.transport.get());
    if (c.rank == 0)
        rt.verbose(1, "hieragg: offload: " + std::to_string(st->leaders.size()) + " leaders joined a fabric group (" +
                          std::string(caps.barrier ? "barrier " : "") + (caps.bcast ? "bcast " : "") +
                          (caps.allreduceOps[HIERAGG_ELEM_DOUBLE] ? "allreduce " : "") +
                          (caps.triggered ? "triggered-chain" : "") + ")");
    finishDecomposition(c, 0);
}

// First exchange done: if every leader opened, the leaders join (the bounded blocking
// wait of docs/offload.md) and everyone exchanges the outcome.
void addressesExchanged(void* ctx, int status) {
    hieragg_comm& c = *static_cast<hieragg_comm*>(ctx);
    std::lock_guard<CommMutex> lock(c.mutex);
    std::shared_ptr<OffloadSetupState> st = c.offload.setup;
    if (status != 0 || !st) return finishDecomposition(c, status);
    const std::string openFailed =
        failures(c, *st, [&](int r) { return st->addrs[r].state != 1; }, "open it");
    if (!openFailed.empty()) {
        giveUp(c, *st, openFailed);
        return finishDecomposition(c, 0);
    }
    try {
        st->joins.assign(static_cast<size_t>(c.size), JoinRecord{});
        std::memset(st->joins.data(), 0, st->joins.size() * sizeof(JoinRecord));
        if (st->me >= 0) {
            std::vector<std::vector<char>> all;
            for (int r : st->leaders)
                all.emplace_back(st->addrs[r].addr, st->addrs[r].addr + st->addrs[r].len);
            JoinRecord& mine = st->joins[c.rank];
            // A leader that cannot join tells the others, who then stop waiting for it
            // (instead of waiting out coll_hieragg_ofi_join_timeout).
            JoinAbort abort(c, st->leaders, st->me);
            if (injectedAt("HIERAGG_TEST_OFI_FAIL_JOIN", c.worldRank)) {
                mine.state = -1;
                st->why = "join not attempted (HIERAGG_TEST_OFI_FAIL_JOIN)";
            } else {
                mine.state = st->tr->join(all, st->me, Runtime::instance()->config().ofi_join_timeout, &st->why,
                                          [&](std::string* why) { return abort.heard(why); })
                                 ? 1
                                 : -1;
            }
            if (mine.state != 1) abort.tell();
            const OffloadCaps& caps = st->tr->caps();
            mine.barrier = caps.barrier;
            mine.bcast = caps.bcast;
            mine.triggered = caps.triggered;
            for (int e = 0; e < HIERAGG_ELEM_COUNT; ++e) mine.ops[e] = caps.allreduceOps[e];
            mine.maxCount = caps.maxCount;
            mine.maxBytes = caps.maxBytes;
        }
        if (int rc = startRecordExchange(c, st->joins.data(), sizeof(JoinRecord), offloadExchangeTagBase(1),
                                         joinsExchanged))
            finishDecomposition(c, rc);
    } catch (const std::bad_alloc&) {
        finishDecomposition(c, HIERAGG_ERR_NO_MEM);
    }
}

}  // namespace

bool beginOffloadSetup(hieragg_comm& c) {
    Runtime& rt = *Runtime::instance();
    const hieragg_config& cfg = rt.config();
    if (cfg.offload == HIERAGG_OFFLOAD_OFF || !c.decomp.hierarchy || c.inter) return false;
    const hier::Hierarchy& h = *c.decomp.hierarchy;
    // The leader space, unrooted, as rank 0 (always a leader) sees it: ascending leaders.
    const std::vector<int> leaders = hier::spaceGroup(h, h.levels(), 0, -1).group.ranks;
    if (leaders.size() <= 1) return false;
    const OffloadBackendFn openBackend = offloadBackend("ofi");
    if (!openBackend) {
        if (cfg.offload == HIERAGG_OFFLOAD_OFI && c.worldRank == 0)
            rt.warnOnce("coll_hieragg_offload=ofi: this build has no libfabric; collectives use point-to-point");
        return false;
    }
    if (cfg.offload == HIERAGG_OFFLOAD_AUTO &&
        !modelPicksOffload(c, c.selection.costs, static_cast<int>(leaders.size()), cfg.segment_size)) {
        if (c.rank == 0)
            rt.verbose(1, "hieragg: offload=auto: the cost model picks no offloaded leader stage here "
                          "(coll_hieragg_cost_ofi_*); not opened");
        return false;
    }
    try {
        auto st = std::make_shared<OffloadSetupState>();
        st->leaders = leaders;
        st->provider = cfg.ofi_provider ? cfg.ofi_provider : "";
        st->explicitAsk = cfg.offload == HIERAGG_OFFLOAD_OFI;
        for (size_t i = 0; i < leaders.size(); ++i)
            if (leaders[i] == c.rank) st->me = static_cast<int>(i);
        st->addrs.assign(static_cast<size_t>(c.size), AddressRecord{});
        std::memset(st->addrs.data(), 0, st->addrs.size() * sizeof(AddressRecord));
        if (st->me >= 0) {
            // Local only (no other rank involved): the leader's endpoint and its address.
            AddressRecord& mine = st->addrs[c.rank];
            mine.state = -1;
            OffloadOpen how;
            how.pml = &rt.transport();
            how.provider = st->provider;
            how.manualProgress = cfg.ofi_manual_progress != 0;
            how.worldRank = c.worldRank;
            st->tr = openBackend(how, &st->why);
            if (st->tr) {
                std::vector<char> a = st->tr->open(&st->why);
                if (!a.empty() && a.size() <= sizeof mine.addr) {
                    mine.state = 1;
                    mine.len = static_cast<int32_t>(a.size());
                    std::memcpy(mine.addr, a.data(), a.size());
                } else if (!a.empty()) {
                    st->why = "endpoint address of " + std::to_string(a.size()) + " bytes is too long";
                }
            }
        }
        c.offload.setup = st;
        if (int rc = startRecordExchange(c, st->addrs.data(), sizeof(AddressRecord), offloadExchangeTagBase(0),
                                         addressesExchanged))
            finishDecomposition(c, rc);
    } catch (const std::bad_alloc&) {
        finishDecomposition(c, HIERAGG_ERR_NO_MEM);
    }
    return true;
}

}  // namespace hieragg
