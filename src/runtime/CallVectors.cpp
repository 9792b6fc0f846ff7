#include "CallVectors.hpp"

#include <cstddef>
#include <cstring>

#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg {

namespace {

// A type layout's fields the schedule reads (size, lb, extent, true_lb, true_extent) are its
// first 40 bytes, with no padding among them: `predefined` and the tail padding are left out.
constexpr size_t kLayoutBytes = offsetof(hieragg_dtype_info, predefined);
static_assert(kLayoutBytes == 5 * sizeof(size_t), "layout fields are five words");

enum Slot { kSCounts, kSDispls, kRCounts, kRDispls, kSDisplsBytes, kRDisplsBytes, kSources, kDestinations,
            kSTypes, kRTypes, kLearned, kSlots };

struct Spans {
    const void* data[kSlots] = {};
    size_t count[kSlots] = {};     // elements
    size_t elemBytes[kSlots] = {};
    bool any = false;
};

Spans spansOf(const CollCall& c) {
    Spans s;
    const hieragg_coll_args& a = c.args;
    if (c.varStage == 1) return s;  // the size stage depends on the communicator and the root only
    const hier::CollectiveFacts& f = hier::factsOf(a.kind);
    auto put = [&](Slot slot, const void* p, size_t n, size_t bytes) {
        s.any = true;  // present or not, the header records it
        if (!p) return;
        s.data[slot] = p;
        s.count[slot] = n;
        s.elemBytes[slot] = bytes;
    };
    if (f.vectors != hier::kNoVectors) {
        const size_t peers = static_cast<size_t>(c.inter ? c.remoteSize : c.size);
        size_t sendLen = peers, recvLen = peers;
        if (f.vectorLength == hier::VectorLength::LocalRanks) sendLen = recvLen = static_cast<size_t>(c.size);
        if (f.vectorLength == hier::VectorLength::Neighbors) {
            sendLen = static_cast<size_t>(a.outdegree > 0 ? a.outdegree : 0);
            recvLen = static_cast<size_t>(a.indegree > 0 ? a.indegree : 0);
        }
        // MPI: the send vectors of an in-place exchange and the root's vectors elsewhere
        // than at the root are not significant (they may point anywhere).
        const bool atRoot = c.inter ? a.root == HIERAGG_ROOT : c.rank == a.root;
        const bool send = !(a.in_place && f.rootOnly == hier::RootOnly::None) &&
                          (f.rootOnly != hier::RootOnly::SendVectors || atRoot);
        const bool recv = f.rootOnly != hier::RootOnly::RecvVectors || atRoot;
        const uint16_t v = f.vectors;
        if (send && (v & hier::kSendCounts)) put(kSCounts, a.scounts, sendLen, sizeof(int));
        if (send && (v & hier::kSendDispls)) put(kSDispls, a.sdispls, sendLen, sizeof(int));
        if (recv && (v & hier::kRecvCounts)) put(kRCounts, a.rcounts, recvLen, sizeof(int));
        if (recv && (v & hier::kRecvDispls)) put(kRDispls, a.rdispls, recvLen, sizeof(int));
        if (send && (v & hier::kSendDisplsBytes)) put(kSDisplsBytes, a.sdispls_bytes, sendLen, sizeof(ptrdiff_t));
        if (recv && (v & hier::kRecvDisplsBytes)) put(kRDisplsBytes, a.rdispls_bytes, recvLen, sizeof(ptrdiff_t));
        if (v & hier::kNeighborLists) {
            put(kSources, a.sources, recvLen, sizeof(int));
            put(kDestinations, a.destinations, sendLen, sizeof(int));
        }
        // The layouts describeTypes found (CallBinding.hpp), by value.
        if (v & hier::kPeerTypes) {
            put(kSTypes, c.stypes.data(), c.stypes.size(), sizeof(hieragg_dtype_info));
            put(kRTypes, c.rtypes.data(), c.rtypes.size(), sizeof(hieragg_dtype_info));
        }
    }
    if (c.varStage == 2 && c.learnedBytes) put(kLearned, c.learnedBytes, recipes::sizeStageLearned(c), sizeof(uint64_t));
    return s;
}

// fn(data, bytes) over the header, then every present vector in slot order.
template <class Fn> void visit(const CollCall& c, Fn&& fn) {
    const Spans s = spansOf(c);
    if (!s.any) return;
    uint64_t header[kSlots];
    for (int i = 0; i < kSlots; ++i) header[i] = s.data[i] ? s.count[i] + 1 : 0;
    fn(header, sizeof header);
    for (int i = 0; i < kSlots; ++i) {
        if (!s.data[i]) continue;
        if (i == kSTypes || i == kRTypes) {
            const auto* t = static_cast<const hieragg_dtype_info*>(s.data[i]);
            for (size_t k = 0; k < s.count[i]; ++k) fn(&t[k], kLayoutBytes);
        } else {
            fn(s.data[i], s.count[i] * s.elemBytes[i]);
        }
    }
}

// A word-at-a-time multiplicative hash (collisions cost a rebuild, never a wrong schedule:
// the cache compares the vectors themselves).
struct Hasher {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    uint64_t bytes = 0;
    void mix(uint64_t w) {
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 29;
    }
    void operator()(const void* p, size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        bytes += n;
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t w;
            std::memcpy(&w, b + i, 8);
            mix(w);
        }
        if (i < n) {
            uint64_t w = 0;
            std::memcpy(&w, b + i, n - i);
            mix(w ^ (static_cast<uint64_t>(n - i) << 56));
        }
    }
};

}  // namespace

VectorDigest digestVectors(const CollCall& c) {
    Hasher h;
    visit(c, h);
    return {h.bytes ? h.h : 0, h.bytes};
}

bool sameVectors(const CollCall& c, const std::vector<char>& kept) {
    size_t at = 0;
    bool same = true;
    visit(c, [&](const void* p, size_t n) {
        if (!same) return;
        same = at + n <= kept.size() && std::memcmp(kept.data() + at, p, n) == 0;
        at += n;
    });
    return same && at == kept.size();
}

void keepVectors(const CollCall& c, std::vector<char>& out) {
    out.clear();
    visit(c, [&](const void* p, size_t n) {
        const auto* b = static_cast<const char*>(p);
        out.insert(out.end(), b, b + n);
    });
}

}  // namespace hieragg
