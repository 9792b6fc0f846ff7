// The last call of a communicator (docs/architecture.md, "The cost of one call"): its
// signature (schedule and plan keys) and what it ran, so that a call with the same signature
// skips both caches; its raw arguments, so that a repeat of them skips describing its types
// and writing its keys; and the registry rows that served it (MPI_T). Part of CallCache.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hieragg/Schedule.hpp"
#include "hieragg/abi.h"
#include "hieragg/hier/Selection.hpp"

namespace hieragg {

// Which of a call's buffers are null (bit 0 the send buffer, bit 1 the receive buffer).
inline unsigned nullBuffers(const hieragg_coll_args& a) {
    return static_cast<unsigned>(a.sbuf == nullptr) | static_cast<unsigned>(a.rbuf == nullptr) << 1;
}

// Everything of the arguments the schedule and plan keys read besides the per-rank vectors
// (buffers only by whether they are null: they are bound per call; `bNulls` is
// nullBuffers(b), kept with b). Every repeated call asks, so without branches, and the six
// ints that sit side by side (op_commutative, float_sum, root, topology, indegree,
// outdegree) eight bytes at a time.
inline bool sameRawCall(const hieragg_coll_args& a, const hieragg_coll_args& b, unsigned bNulls) {
    constexpr size_t kInts = offsetof(hieragg_coll_args, op_commutative);
    static_assert(offsetof(hieragg_coll_args, float_sum) == kInts + sizeof(int) &&
                      offsetof(hieragg_coll_args, root) == kInts + 2 * sizeof(int) &&
                      offsetof(hieragg_coll_args, topology) == kInts + 3 * sizeof(int) &&
                      offsetof(hieragg_coll_args, indegree) == kInts + 4 * sizeof(int) &&
                      offsetof(hieragg_coll_args, outdegree) == kInts + 5 * sizeof(int),
                  "the six ints sit side by side");
    // Each word loaded straight into a register (an array of them went through the stack).
    auto word = [](const hieragg_coll_args& x, size_t i) {
        uint64_t w;
        std::memcpy(&w, reinterpret_cast<const char*>(&x) + kInts + i * sizeof w, sizeof w);
        return w;
    };
    auto bits = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
    const uint64_t differ =
        (word(a, 0) ^ word(b, 0)) | (word(a, 1) ^ word(b, 1)) | (word(a, 2) ^ word(b, 2)) |
        static_cast<uint64_t>(static_cast<unsigned>(a.kind) ^ static_cast<unsigned>(b.kind)) |
        static_cast<uint64_t>(static_cast<unsigned>(a.in_place ^ b.in_place)) | (a.scount ^ b.scount) |
        (a.rcount ^ b.rcount) | (bits(a.stype) ^ bits(b.stype)) | (bits(a.rtype) ^ bits(b.rtype)) |
        (bits(a.op) ^ bits(b.op)) | static_cast<uint64_t>(nullBuffers(a) ^ bNulls);
    return differ == 0;
}
inline bool sameRawCall(const hieragg_coll_args& a, const hieragg_coll_args& b) {
    return sameRawCall(a, b, nullBuffers(b));
}

// A barrier's arguments: its kind alone, every other field zero (what the shim fills for
// MPI_Barrier, and what hieragg_run_barrier runs).
constexpr hieragg_coll_args barrierArgs() {
    hieragg_coll_args a{};
    a.kind = HIERAGG_BARRIER;
    return a;
}
inline constexpr hieragg_coll_args kBarrierArgs = barrierArgs();

struct LastCall {
    std::string signature;
    std::shared_ptr<const hier::Plan> plan;
    std::shared_ptr<const Schedule> schedule;
    std::shared_ptr<const std::vector<char>> vectors;  // its per-rank vectors (CallVectors.hpp)
    // The raw arguments, kept when the datatypes are predefined and the kind has no per-peer
    // datatypes (CallPreparation.cpp, scheduleFor): a call with the same raw arguments and
    // per-rank vectors equal to `vectors` has the last signature.
    bool rawValid = false;
    hieragg_coll_args raw{};
    unsigned rawNulls = 0;  // nullBuffers(raw)
    hieragg_dtype_info rawStype{}, rawRtype{};
    int rawAlgorithm = 0;
    // What of the compiled fast path's entry (runRepeat) depends only on the raw arguments,
    // decided when they were kept: the kind has no per-rank vectors and is no strong
    // reduction (which launch runs as a chain).
    bool rawCompilable = false;
    // The raw arguments are a barrier's (kBarrierArgs) and rawCompilable: decided once when
    // they were kept, so that a blocking barrier's entry (hieragg_run_barrier), whose
    // arguments are always those, knows that it repeats them without comparing.
    bool rawCompilableBarrier = false;
    // Changes whenever the raw arguments (and with them the last schedule and the raw
    // layouts) are kept anew or dropped: CallCache::compiledForLast's check of the compiled
    // call against them holds while it stays.
    uint64_t rawGeneration = 0;
    // MPI_T: the registry rows that served the last signature (countServed), valid once
    // counted; `isLast` says the call being launched has that signature.
    static constexpr size_t kMaxServed = 16;
    size_t served[kMaxServed];
    size_t servedCount = 0;
    bool servedValid = false;
    bool isLast = false;

    // Keeps a call's raw arguments (its types' layouts, the algorithm it was prepared with,
    // and whether the compiled fast path may run its repeats: rawCompilable).
    void keepRaw(const hieragg_coll_args& args, const hieragg_dtype_info& stype, const hieragg_dtype_info& rtype,
                 int algorithm, bool compilable) {
        raw = args;
        rawNulls = nullBuffers(args);
        rawStype = stype;
        rawRtype = rtype;
        rawAlgorithm = algorithm;
        rawCompilable = compilable;
        rawCompilableBarrier = compilable && sameRawCall(args, kBarrierArgs);
        ++rawGeneration;
        rawValid = true;
    }
    // Forgets them (the call about to be prepared may change the last schedule).
    void dropRaw() {
        rawValid = false;
        rawCompilableBarrier = false;
        ++rawGeneration;
    }

    // The last call again, with the same raw arguments. Its per-rank vectors, for a kind that
    // has any, are still to be compared by value (`vectors`).
    bool repeatsRaw(const hieragg_coll_args& args) const { return rawValid && sameRawCall(args, raw, rawNulls); }
    // repeatsRaw(kBarrierArgs) && rawCompilable, without the comparison (rawCompilableBarrier).
    bool repeatsCompilableBarrier() const { return rawCompilableBarrier; }
};

}  // namespace hieragg
