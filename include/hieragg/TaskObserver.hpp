// What a Task reports while it runs, for the MPI_T performance variables: each
// message it posts (peer and bytes) and the temporary memory it holds. The
// runtime's per-communicator counters implement it; tests and the simulator
// run without one.
#pragma once
#include <cstddef>

namespace hieragg {

class TaskObserver {
public:
    virtual ~TaskObserver() = default;
    // A send to `peer` (a rank of the communicator, or of the local group when localComm).
    virtual void sent(int peer, bool localComm, size_t bytes) = 0;
    // Sends reported together, call after call (a compiled call's): prepareSends folds the
    // `n` sends to `peers` of `bytes` each into `out` once, and every sentPrepared(out)
    // then counts them as n calls of sent() would, at the cost of one. Up to kSlots
    // counters (the observer's own: the counters' levels) each add bytes and messages.
    struct SendBatch {
        static constexpr int kSlots = 4;
        int used = 0;               // slots[0, used) hold the totals
        int slot[kSlots] = {};
        unsigned long long bytes[kSlots] = {}, messages[kSlots] = {};
    };
    virtual void prepareSends(const int* peers, const size_t* bytes, size_t n, SendBatch& out) const = 0;
    virtual void sentPrepared(const SendBatch& batch) = 0;
    // Temporaries allocated (+) or released (-).
    virtual void tempsHeld(long long deltaBytes) = 0;
    // An offloaded collective started (Transport::icollective): its payload in bytes
    // (allreduce: elements x element size; bcast: bytes, padding included; barrier: 0).
    virtual void offloaded(size_t bytes) { (void)bytes; }
};

}  // namespace hieragg
