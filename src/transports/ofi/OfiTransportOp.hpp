// One offloaded operation of an OfiTransport (OfiTransport.cpp runs it on the fabric,
// OfiRecovery.cpp re-runs it over the PML after a failure). Internal to the transport.
#pragma once
#include <rdma/fabric.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "LeaderOpOverPml.hpp"
#include "OfiTransport.hpp"

namespace hieragg::ofi {

struct OfiTransport::Op {
    fi_context2 ctx;  // first: the context libfabric hands back
    FabricCollective what;
    uint64_t seq = UINT64_MAX;  // place in the group's sequence once issued
    bool issued = false;        // numbered (started on the fabric or over the PML)
    bool injectChecked = false;
    bool onFabric = false;      // the provider holds ctx and the buffers until it completes
    bool fabricDone = false;    // the fabric operation completed without error: fab is the result
    bool held = true;           // a task may still test it
    int err = 0;                // what the task gets
    std::chrono::steady_clock::time_point issuedAt;
    std::vector<char> in;       // this leader's input (allreduce; bcast on the root), kept
    std::vector<char> fab;      // the fabric's buffer (a triggered chain's root sends from `in`)
    void* chain = nullptr;      // a triggered chain's call in TriggeredChains while it runs there
    std::unique_ptr<LeaderOpOverPml> pml;  // the re-run over the PML, after a failure
    bool pmlDone = false;
};

// A leader's notice that the fabric failed: re-run from operation `seq` (OfiRecovery.cpp).
struct OfiTransport::Notice {
    int64_t seq;
    int32_t origin;  // leader index
    int32_t reason;  // kFail*
    char why[112];
};

// Why a leader declared the fabric failed (carried by the notice).
enum : int { kFailError = 1, kFailTimeout = 2, kFailInjected = 3 };

std::string fiError(int rc);
const char* fabricName(FabricKind k);

}  // namespace hieragg::ofi
