#include "LeaderOpOverPml.hpp"

#include <cstring>
#include <type_traits>

namespace hieragg::ofi {

size_t elemBytes(int elem) { return elemKindBytes(elem); }

namespace {
template <class T> bool combine(int opKind, const T* s, T* d, size_t n) {
    switch (opKind) {
    case HIERAGG_OPK_MIN: for (size_t i = 0; i < n; ++i) d[i] = s[i] < d[i] ? s[i] : d[i]; return true;
    case HIERAGG_OPK_MAX: for (size_t i = 0; i < n; ++i) d[i] = s[i] > d[i] ? s[i] : d[i]; return true;
    case HIERAGG_OPK_SUM: for (size_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] + s[i]); return true;
    case HIERAGG_OPK_PROD: for (size_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] * s[i]); return true;
    case HIERAGG_OPK_LOR: for (size_t i = 0; i < n; ++i) d[i] = static_cast<T>((d[i] != 0) || (s[i] != 0)); return true;
    case HIERAGG_OPK_LAND: for (size_t i = 0; i < n; ++i) d[i] = static_cast<T>((d[i] != 0) && (s[i] != 0)); return true;
    case HIERAGG_OPK_LXOR: for (size_t i = 0; i < n; ++i) d[i] = static_cast<T>((d[i] != 0) != (s[i] != 0)); return true;
    default: break;
    }
    if constexpr (std::is_integral_v<T>) {
        switch (opKind) {
        case HIERAGG_OPK_BOR: for (size_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] | s[i]); return true;
        case HIERAGG_OPK_BAND: for (size_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] & s[i]); return true;
        case HIERAGG_OPK_BXOR: for (size_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] ^ s[i]); return true;
        default: break;
        }
    }
    return false;
}
}  // namespace

bool reduceElements(int elem, int opKind, const void* src, void* dst, size_t count) {
    switch (elem) {
    case HIERAGG_ELEM_INT8: return combine(opKind, static_cast<const int8_t*>(src), static_cast<int8_t*>(dst), count);
    case HIERAGG_ELEM_UINT8: return combine(opKind, static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), count);
    case HIERAGG_ELEM_INT16: return combine(opKind, static_cast<const int16_t*>(src), static_cast<int16_t*>(dst), count);
    case HIERAGG_ELEM_UINT16: return combine(opKind, static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), count);
    case HIERAGG_ELEM_INT32: return combine(opKind, static_cast<const int32_t*>(src), static_cast<int32_t*>(dst), count);
    case HIERAGG_ELEM_UINT32: return combine(opKind, static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), count);
    case HIERAGG_ELEM_INT64: return combine(opKind, static_cast<const int64_t*>(src), static_cast<int64_t*>(dst), count);
    case HIERAGG_ELEM_UINT64: return combine(opKind, static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), count);
    case HIERAGG_ELEM_FLOAT: return combine(opKind, static_cast<const float*>(src), static_cast<float*>(dst), count);
    case HIERAGG_ELEM_DOUBLE: return combine(opKind, static_cast<const double*>(src), static_cast<double*>(dst), count);
    default: return false;
    }
}

LeaderOpOverPml::~LeaderOpOverPml() {
    bool inFlight = false;
    for (void* r : reqs_)
        if (r) g_->pml->abandon(r), inFlight = true;
    // An abandoned send may still read its buffer (only when a communicator is freed while
    // a re-run is unfinished): those buffers are left to it rather than freed under it.
    if (inFlight) {
        new std::vector<char>(std::move(inputs_));
        new std::vector<char>(std::move(result_));
    }
}

int LeaderOpOverPml::start(const LeaderGroup& g, const FabricCollective& what, uint64_t seq, const char* in) {
    g_ = &g;
    what_ = what;
    const int n = static_cast<int>(g.ranks.size());
    const int tag = g.tagBase - static_cast<int>(seq % LeaderGroup::kTagWindow);
    void* bytes = g.pml->packedType();
    auto post = [&](bool send, const void* buf, size_t len, int member) {
        void* req = nullptr;
        const int rc = send ? g.pml->isend(g.comm, false, buf, len, bytes, g.ranks[member], tag, &req)
                            : g.pml->irecv(g.comm, false, const_cast<void*>(buf), len, bytes, g.ranks[member], tag,
                                           &req);
        if (rc == 0) reqs_.push_back(req);
        return rc;
    };
    switch (what.kind) {
    case FabricKind::Barrier:
        for (int m = 0; m < n; ++m) {
            if (m == g.me) continue;
            if (int rc = post(true, &token_[0], 1, m)) return rc;
            if (int rc = post(false, &token_[1], 1, m)) return rc;
        }
        return 0;
    case FabricKind::Bcast:
    case FabricKind::TriggeredChainBcast:  // the same bytes from the same root, not a chain
        result_.assign(what.count, 0);
        if (g.me == what.root) {
            if (what.count) std::memcpy(result_.data(), in, what.count);
            for (int m = 0; m < n; ++m)
                if (m != g.me)
                    if (int rc = post(true, result_.data(), what.count, m)) return rc;
        } else if (int rc = post(false, result_.data(), what.count, what.root)) {
            return rc;
        }
        return 0;
    case FabricKind::Allreduce: {
        const size_t len = what.count * elemBytes(what.elem);
        inputs_.assign(len * static_cast<size_t>(n), 0);
        if (len) std::memcpy(inputs_.data() + len * static_cast<size_t>(g.me), in, len);
        for (int m = 0; m < n; ++m) {
            if (m == g.me) continue;
            if (int rc = post(true, inputs_.data() + len * static_cast<size_t>(g.me), len, m)) return rc;
            if (int rc = post(false, inputs_.data() + len * static_cast<size_t>(m), len, m)) return rc;
        }
        return 0;
    }
    }
    return HIERAGG_ERR_INTERNAL;
}

int LeaderOpOverPml::test(bool& done) {
    done = finished_;
    if (finished_) return 0;
    for (void*& r : reqs_) {
        if (!r) continue;
        bool d = false;
        if (int rc = g_->pml->test(r, d)) {
            r = nullptr;  // released by test
            return rc;
        }
        if (!d) return 0;
        r = nullptr;
    }
    reqs_.clear();
    if (what_.kind == FabricKind::Allreduce) {
        // Member order: the same combination on every leader.
        const size_t len = what_.count * elemBytes(what_.elem);
        result_.assign(inputs_.begin(), inputs_.begin() + static_cast<ptrdiff_t>(len));
        for (size_t m = 1; m < g_->ranks.size(); ++m)
            if (!reduceElements(what_.elem, what_.op, inputs_.data() + m * len, result_.data(), what_.count))
                return HIERAGG_ERR_INTERNAL;
        inputs_.clear();
        inputs_.shrink_to_fit();
    }
    finished_ = done = true;
    return 0;
}

}  // namespace hieragg::ofi
