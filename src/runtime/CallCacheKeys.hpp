// The keys of a communicator's schedule and plan caches (CallCache::schedules, ::plans).
// Every rank must find a plan exactly when the others do: a rank that misses chooses again
// from this call's exact size, another reuses the plan chosen for an earlier call of the
// class, and their schedules no longer match (a hang). So a key is a byte string of its
// fields alone, written one by one: a struct copied into a string would carry its padding,
// whose bytes are whatever the stack held (different per rank and per call).
#pragma once
#include <cstring>
#include <string>
#include <type_traits>

#include "hieragg/CollCall.hpp"
#include "hieragg/hier/RulesFile.hpp"

namespace hieragg {

// A key's bytes, built without allocating: a stream of 8-byte calls compares the last
// call's signature on every call (CallPreparation.cpp, scheduleFor).
class CallKey {
public:
    template <class T> CallKey& add(T v) {
        static_assert(std::is_scalar<T>::value, "only scalars: a struct would bring its padding");
        if (n_ + sizeof v <= sizeof bytes_) std::memcpy(bytes_ + n_, &v, sizeof v);
        n_ += sizeof v;  // past capacity: equals() and str() refuse (never a false match)
        return *this;
    }
    CallKey& add(const hieragg_dtype_info& t) {
        return add(t.size).add(t.lb).add(t.extent).add(t.true_lb).add(t.true_extent);
    }
    bool fits() const { return n_ <= sizeof bytes_; }
    size_t size() const { return n_; }
    const char* data() const { return bytes_; }
    bool equals(const std::string& s) const { return fits() && s.size() == n_ && std::memcmp(s.data(), bytes_, n_) == 0; }
    std::string str() const { return prefix(n_); }
    // The first n bytes (a key written before others were appended); empty if it overflowed.
    std::string prefix(size_t n) const { return std::string(bytes_, fits() && n <= n_ ? n : 0); }

private:
    // A signature is scalars only (per-rank vectors enter as a digest, CallVectors.hpp):
    // about 200 bytes whatever the communicator's size.
    char bytes_[512];
    size_t n_ = 0;
};

// What a cached schedule depends on: kind, root, counts, layouts, op kind, in-place,
// segment size, the algorithm override, the offload path, neighbor degrees and the digest
// of the per-rank vectors (their hash and length; the schedule cache compares the vectors
// themselves, ScheduleCache.hpp). Buffers and handles are bound per call.
void writeScheduleKey(const CollCall& c, CallKey& k);
std::string scheduleCacheKey(const CollCall& c);

// What a plan depends on besides the communicator: the collective, the size class of its
// message, the op's commutativity, the override, the offload path and the rules file's
// candidate; only what every rank of the call shares (not the root, exact counts or
// in-place, which MPI lets the root alone set), so every rank picks the same plan.
void writePlanKey(const CollCall& c, const hier::RuleCandidate* rule, CallKey& k);
std::string planCacheKey(const CollCall& c, const hier::RuleCandidate* rule);

}  // namespace hieragg
