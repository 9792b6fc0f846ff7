// Per-communicator counters behind the MPI_T performance variables (issue 9;
// docs/tuning.md): bytes and messages this process sent inside its subspace and
// across each leader level, collectives served per registry algorithm, and the
// high-water mark of temporary memory held by the communicator's collectives.
// Tasks report to it as a TaskObserver; the shim reads it through the C ABI.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "hieragg/TaskObserver.hpp"
#include "hieragg/abi.h"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg {

class CommCounters : public TaskObserver {
public:
    CommCounters();
    // Level of every peer as seen from `rank` (0: same subspace, l: same level-l group but
    // another level-(l-1) group, levels(): different top-level groups). Called once, after
    // the decomposition and before the first task; without one every peer counts as level 0.
    void setHierarchy(const hier::Hierarchy* h, int rank);

    void sent(int peer, bool localComm, size_t bytes) override { count(peer, localComm, bytes); }
    // A batch's slots are levels.
    void prepareSends(const int* peers, const size_t* bytes, size_t n, SendBatch& out) const override;
    void sentPrepared(const SendBatch& batch) override {
        for (int i = 0; i < batch.used; ++i) {
            bytes_[batch.slot[i]].fetch_add(batch.bytes[i], std::memory_order_relaxed);
            messages_[batch.slot[i]].fetch_add(batch.messages[i], std::memory_order_relaxed);
        }
    }
    void tempsHeld(long long deltaBytes) override;
    void offloaded(size_t bytes) override;
    // One call served by registry row `row` (index into hier::allAlgorithms()).
    void served(size_t row) { algorithmCalls_[row].fetch_add(1, std::memory_order_relaxed); }

    void read(hieragg_comm_counters& out) const;
    uint64_t algorithmCalls(size_t row) const { return algorithmCalls_[row].load(std::memory_order_relaxed); }

private:
    // One send, at the level that separates this rank from `peer`.
    void count(int peer, bool localComm, size_t bytes) {
        const int level = levelOf(peer, localComm);
        bytes_[level].fetch_add(bytes, std::memory_order_relaxed);
        messages_[level].fetch_add(1, std::memory_order_relaxed);
    }
    int levelOf(int peer, bool localComm) const {
        // Intercommunicators are never decomposed: everything counts as level 0.
        return !localComm && peer >= 0 && static_cast<size_t>(peer) < peerLevel_.size() ? peerLevel_[peer] : 0;
    }

    std::vector<uint8_t> peerLevel_;
    std::atomic<uint64_t> bytes_[HIERAGG_COUNTER_LEVELS]{}, messages_[HIERAGG_COUNTER_LEVELS]{};
    std::vector<std::atomic<uint64_t>> algorithmCalls_;
    std::atomic<long long> tempInUse_{0};
    std::atomic<uint64_t> tempHighWater_{0};
    std::atomic<uint64_t> subspaces_{0};
    std::atomic<uint64_t> offloadedOps_{0}, offloadedBytes_{0};
};

}  // namespace hieragg
