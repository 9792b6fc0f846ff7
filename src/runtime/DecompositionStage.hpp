// A communicator's decomposition stage (docs/architecture.md, "Decomposition"): built on
// first use by a nonblocking identity exchange (then the network calibration and the offload
// setup), the calls started meanwhile or waiting for the tag window, and the result: the
// hierarchy (null: run flat). DecompositionStage.cpp runs it.
#pragma once
#include <deque>
#include <memory>
#include <vector>

#include "OwnedCallArgs.hpp"
#include "hieragg/abi.h"
#include "hieragg/hier/Hierarchy.hpp"

struct hieragg_comm;

namespace hieragg {

// A call started before the decomposition exists, or whose tags a call still in flight
// holds (CallWindow.hpp), or queued behind such a call; they run in start order once the
// decomposition exists and each fits the window. Its arrays are copied: a nonblocking
// caller may have freed its own by then.
struct PendingStart {
    OwnedCallArgs args;
    hieragg_complete_fn done;
    void* ctx;
    int64_t persistentId;  // -1: not a persistent request
};

// What beginDecomposition runs (c.mutex held) once the decomposition exists.
using ReadyFn = void (*)(hieragg_comm& c, int status);

struct DecompositionStage {
    enum class State { None, Exchanging, Ready } state = State::None;
    std::deque<PendingStart> pending;
    std::vector<char> identityRecords;  // the exchange's receive buffer while it runs
    ReadyFn onReady = nullptr;          // what beginDecomposition was given
    std::unique_ptr<hier::Hierarchy> hierarchy;  // null: run flat

    bool ready() const { return state == State::Ready; }
};

// Starts whatever the decomposition needs (None -> Exchanging or Ready). Never waits for
// another rank: the exchange is a Task progressed with the others, and `onReady(c)` runs
// (c.mutex held) when the decomposition exists, here or from progress.
void beginDecomposition(hieragg_comm& c, ReadyFn onReady);
// Ends the decomposition stage (Exchanging -> Ready) and releases the waiting calls.
void finishDecomposition(hieragg_comm& c, int status);
// The calibration stage is over (costs final): the offload setup, then the waiting calls.
void continueSetupAfterCalibration(hieragg_comm& c);
// Starts a ring allgather of fixed-size records (`recs` holds c.size records, this rank's
// at its index) as a tracked Task on the fixed tag block `tagBase`; `done(&c, status)`
// runs when it completes (from progress). Returns an error code when nothing started.
int startRecordExchange(hieragg_comm& c, void* recs, size_t recordBytes, int tagBase, hieragg_complete_fn done);

}  // namespace hieragg
