// Compiling a schedule into a CompiledCall's flat action array (CompiledCall.hpp): what
// compile() accepts, how each step becomes an action, and the call's shape (flat, straight,
// ordered). Running a compiled call is CompiledCall.cpp.
#include <cstring>

#include "CompiledCall.hpp"

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

}  // namespace hieragg
