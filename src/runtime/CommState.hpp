// Per-communicator state of the core (the hieragg_comm of the C ABI), composed of named
// parts: the call numbering that gives every collective its own tags (TagAllocation.hpp),
// the persistent requests (PersistentRequests.hpp), the decomposition stage with the calls
// waiting for it (DecompositionStage.hpp), the calls in flight against the tag window
// (CallWindow.hpp), what is cached of earlier calls (CallCache.hpp), the offload state
// (OffloadState.hpp) and the selection's state (SelectionState.hpp).
#pragma once
#include <memory>
#include <mutex>

#include "CallCache.hpp"
#include "CallWindow.hpp"
#include "CommCounters.hpp"
#include "CommMutex.hpp"
#include "DecompositionStage.hpp"
#include "OffloadState.hpp"
#include "PersistentRequests.hpp"
#include "SelectionState.hpp"
#include "TagAllocation.hpp"
#include "hieragg/Task.hpp"
#include "hieragg/abi.h"

struct hieragg_comm {
    void* comm = nullptr;
    int rank = 0;
    int size = 1;
    bool inter = false;
    int remoteSize = 0;
    int worldRank = 0;
    // Peers of a call's messages: the communicator's ranks, or the remote group's.
    size_t peerCount() const { return static_cast<size_t>(inter ? remoteSize : size); }

    hieragg::TagAllocation tags;
    hieragg::PersistentRequests persistent;
    hieragg::DecompositionStage decomp;
    // The calls in flight here, against the tag window (CallWindow.hpp).
    hieragg::CallWindow window;
    hieragg::CallCache cache;
    hieragg::OffloadState offload;
    hieragg::SelectionState selection;
    // A finished task of this communicator kept for its next call (CallLaunch.cpp, launchTask):
    // a call that completes during its start (an eager send, a message already here) hands
    // its task straight to the next one, without the runtime's lock. Starts hold `mutex`.
    std::unique_ptr<hieragg::Task> spareTask;
    // MPI_T counters; shared with this communicator's tasks (they may outlive it).
    std::shared_ptr<hieragg::CommCounters> counters = std::make_shared<hieragg::CommCounters>();
    bool countersLevelled = false;  // counters know the decomposition
    // Starts on this communicator come from one thread at a time (MPI orders them), but the
    // exchange completes from whichever thread drives progress.
    hieragg::CommMutex mutex;
};
