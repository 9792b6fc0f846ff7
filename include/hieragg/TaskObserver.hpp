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
    // Temporaries allocated (+) or released (-).
    virtual void tempsHeld(long long deltaBytes) = 0;
    // An offloaded collective started (Transport::icollective): its payload in bytes
    // (allreduce: elements x element size; bcast: bytes, padding included; barrier: 0).
    virtual void offloaded(size_t bytes) { (void)bytes; }
};

}  // namespace hieragg
