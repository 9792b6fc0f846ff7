// A communicator's offload state (docs/offload.md): this leader's transport (null on
// non-leaders and when offload is off), what the leaders' group can run (the same on every
// rank; `on` says whether there is a group at all), the tickets that order its operations,
// and the setup's state while its exchanges run (OffloadSetup.hpp).
#pragma once
#include <cstdint>
#include <memory>

#include "hieragg/CollCall.hpp"
#include "hieragg/Transport.hpp"

namespace hieragg {

struct OffloadSetupState;  // OffloadSetup.cpp

struct OffloadState {
    std::unique_ptr<Transport> transport;
    OffloadCaps caps;
    bool on = false;
    uint64_t tickets = 0;  // taken in launch order, the same on every leader
    std::shared_ptr<OffloadSetupState> setup;
};

}  // namespace hieragg
