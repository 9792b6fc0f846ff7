// A schedule: one rank's part of one collective, as data (SPEC 2). Steps are
// sends, receives, local copies and local reductions wired by dependencies.
// Buffers and datatypes are abstract slots bound when a Task runs the
// schedule, so one schedule can be cached and reused for many calls.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hieragg {

using StepId = int32_t;
constexpr StepId kNoStep = -1;

// Channels: each stage of a recipe owns kStageChannels consecutive channels, so
// segment s of a pipelined stage travels on stage*kStageChannels + s % kStageChannels
// and matching never depends on the order in which segments complete.
constexpr uint32_t kStageChannels = 256;
constexpr uint32_t stageChannel(uint32_t stage) { return stage * kStageChannels; }
constexpr uint32_t segmentChannel(uint32_t base, size_t segment) {
    return base + static_cast<uint32_t>(segment % kStageChannels);
}

// Buffer slots: the user's send and receive buffers, then temporaries.
enum : uint32_t { kSendBuf = 0, kRecvBuf = 1, kFirstTemp = 2 };
// Datatype slots: the call's send/recv type, the packed byte type, then per-peer
// types (alltoallw: 3+i is stypes[i], 3+n+i is rtypes[i]).
enum : uint32_t { kSendType = 0, kRecvType = 1, kPackedType = 2, kFirstPeerType = 3 };

struct BufRef {
    uint32_t slot = kSendBuf;
    ptrdiff_t offset = 0;  // bytes from the slot's origin
    BufRef at(ptrdiff_t more) const { return {slot, offset + more}; }
};

struct TypeRef {
    uint32_t type = kPackedType;
    size_t count = 0;
};

// Collective: an offloaded collective over the leader space (Transport::icollective):
// src -> dst, srcType.count elements (bytes for bcast), `peer` = root member index.
enum class StepKind : uint8_t { Send, Recv, Copy, Reduce, Nop, Collective };

struct Step {
    StepKind kind = StepKind::Nop;
    bool localComm = false;  // intercommunicators: talk inside the local group
    uint8_t fabric = 0;      // Collective: a FabricKind
    int peer = -1;
    uint32_t channel = 0;    // distinguishes messages between the same pair
    uint32_t peerSlot = 0;   // index of peer in Schedule::peers / localPeers (filled by the builder)
    BufRef src, dst;         // Send: src; Recv: dst; Copy: src -> dst; Reduce: dst = src op dst
    TypeRef srcType, dstType;
    uint32_t depBegin = 0, depCount = 0;  // into Schedule::deps
};

struct TempBuffer {
    size_t bytes = 0;
    ptrdiff_t bias = 0;  // origin = allocation + bias (lets a datatype with lb != 0 start at 0)
};

// A fragment template (the idea of UCC's pipelined schedules): steps [begin, end) are
// fragment 0 of a pipeline the Task runs `fragments` times with at most `window`
// fragments in flight, so a schedule's size is O(template), not O(message / segment).
// Fragment f shifts every buffer of slot s by f * slotStride[s] bytes, or, for a slot
// marked ring, by (f mod window) * slotStride[s] (temporaries hold `window` fragments),
// talks on segmentChannel(channel, f) (template channels are stage bases), and the last
// fragment's steps move lastCount elements instead of the template's count. Template
// steps depend on earlier steps (the pipeline opens when all of those are done) or on
// template steps of the same fragment; a later step that depends on a template step
// waits for that step in every fragment. Fragment f starts once fragments < f-window+1
// are all done, so no two fragments in flight on a rank share a ring slot or a channel.
// A schedule may hold several templates, one after another (a per-level broadcast
// pipelines each level with its own segment); each talks on its own stage's channels.
struct FragmentPipeline {
    StepId begin = 0, end = 0;  // empty: no pipeline
    size_t fragments = 0;
    size_t window = 1;
    size_t lastCount = 0;
    std::vector<ptrdiff_t> slotStride;  // [buffer slot], missing = 0
    std::vector<uint8_t> slotRing;      // [buffer slot], missing = 0
    bool active() const { return end > begin; }
    size_t templateSize() const { return static_cast<size_t>(end - begin); }
    // `total` elements cut into fragments of `perFragment` (the last one shorter), at most
    // `window` in flight; no strides yet.
    static FragmentPipeline of(size_t total, size_t perFragment, size_t window);
    // Fragment f shifts buffers of `slot` by f * stride bytes, or (ring) (f mod window) * stride.
    void setStride(uint32_t slot, ptrdiff_t stride, bool ring);
};

struct Schedule {
    std::vector<Step> steps;
    std::vector<StepId> deps;           // dependency lists, indexed by Step::depBegin
    std::vector<uint32_t> dependentBegin;  // CSR of reverse edges (filled by the builder)
    std::vector<StepId> dependents;
    std::vector<TempBuffer> temps;      // slot kFirstTemp + i
    uint32_t channels = 1;              // channels used (tags reserved per call)
    // Distinct peers this rank exchanges messages with, ascending: on the communicator
    // (an intercommunicator's remote group) and inside an intercommunicator's local group.
    // Message patterns are symmetric, so a peer lists me exactly when I list it: the
    // runtime numbers calls per pair from these (docs/architecture.md, "Messages and tags").
    std::vector<int> peers, localPeers;
    std::string algorithm;              // for verbose output and tests
    std::vector<FragmentPipeline> pipelines;  // steps run once per fragment (see above), in order

    // Steps a Task runs (template steps count once per fragment).
    size_t executedSteps() const;

    size_t countKind(StepKind k) const;
    size_t tempBytes() const;
};

}  // namespace hieragg
