#include "CommCounters.hpp"

#include <algorithm>

#include "hieragg/hier/AlgorithmRegistry.hpp"

namespace hieragg {

CommCounters::CommCounters() : algorithmCalls_(hier::allAlgorithms().size()) {}

void CommCounters::setHierarchy(const hier::Hierarchy* h, int rank) {
    subspaces_.store(h && !h->isTrivial() ? static_cast<uint64_t>(h->groupCount(0)) : 1, std::memory_order_relaxed);
    if (!h || h->isTrivial()) return;
    peerLevel_.assign(h->commSize(), 0);
    for (int p = 0; p < h->commSize(); ++p) {
        int level = 0;
        while (level < h->levels() && h->groupOf(level, p) != h->groupOf(level, rank)) ++level;
        peerLevel_[p] = static_cast<uint8_t>(std::min(level, HIERAGG_COUNTER_LEVELS - 1));
    }
}

void CommCounters::prepareSends(const int* peers, const size_t* bytes, size_t n, SendBatch& out) const {
    static_assert(SendBatch::kSlots >= HIERAGG_COUNTER_LEVELS, "a slot per level");
    out = SendBatch{};
    for (size_t i = 0; i < n; ++i) {
        const int level = levelOf(peers[i], false);
        int at = 0;
        while (at < out.used && out.slot[at] != level) ++at;
        if (at == out.used) out.slot[out.used++] = level;
        out.bytes[at] += bytes[i];
        ++out.messages[at];
    }
}

void CommCounters::tempsHeld(long long deltaBytes) {
    const long long now = tempInUse_.fetch_add(deltaBytes, std::memory_order_relaxed) + deltaBytes;
    uint64_t high = tempHighWater_.load(std::memory_order_relaxed);
    while (now > 0 && static_cast<uint64_t>(now) > high &&
           !tempHighWater_.compare_exchange_weak(high, static_cast<uint64_t>(now), std::memory_order_relaxed)) {
    }
}

void CommCounters::offloaded(size_t bytes) {
    offloadedOps_.fetch_add(1, std::memory_order_relaxed);
    offloadedBytes_.fetch_add(bytes, std::memory_order_relaxed);
}

void CommCounters::read(hieragg_comm_counters& out) const {
    for (int l = 0; l < HIERAGG_COUNTER_LEVELS; ++l) {
        out.bytes[l] = bytes_[l].load(std::memory_order_relaxed);
        out.messages[l] = messages_[l].load(std::memory_order_relaxed);
    }
    out.temp_bytes_high_water = tempHighWater_.load(std::memory_order_relaxed);
    out.subspaces = subspaces_.load(std::memory_order_relaxed);
    out.offloaded_operations = offloadedOps_.load(std::memory_order_relaxed);
    out.offloaded_bytes = offloadedBytes_.load(std::memory_order_relaxed);
}

}  // namespace hieragg
