// Offload backends (docs/offload.md): a library outside the runtime (src/transports/ofi,
// built only with libfabric) provides the transport of a communicator's leader for the
// leaders' collective stages and registers it by name when it is linked in; the runtime's
// offload setup (src/runtime/OffloadSetup.cpp) finds it by that name, and a build without
// it runs every collective over point-to-point.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/Transport.hpp"

namespace hieragg {

// What an endpoint needs to survive a failing fabric (docs/offload.md, "Failure handling"):
// the leaders as point-to-point peers (communicator ranks in leader order, mine at `me`),
// the tag block of the operations re-run over the PML and the failure notices' tag, the
// operation timeout, the tests' fault injection, and where to say what happened.
struct OffloadRecovery {
    void* comm = nullptr;
    std::vector<int> leaders;
    int me = -1;
    int rerunTagBase = 0;
    int noticeTag = 0;
    int worldRank = 0;
    double opTimeoutSec = 0;    // <= 0: none
    uint64_t injectAt = 0;      // n-th offloaded operation of this process fails (0: never)
    int injectRank = -1;        // ... on this world rank (-1: every leader)
    bool injectHang = false;    // ... by never completing (the timeout's path) instead of an error
    std::function<void(int level, const std::string&)> say;  // 0: warning, else verbose level
};

// One leader's offload transport: point-to-point, copies and reductions go to the PML
// transport it wraps, the leaders' collective steps to the fabric.
class OffloadEndpoint : public Transport {
public:
    // Opens the endpoint; returns its address, or empty with *why.
    virtual std::vector<char> open(std::string* why) = 0;
    // Joins the group of `addresses` (every leader's, in leader order; mine at `me`), waiting
    // at most `timeoutSec`, or until `giveUp` (polled while waiting) says another leader will
    // not join. False with *why if it failed.
    virtual bool join(const std::vector<std::vector<char>>& addresses, int me, double timeoutSec, std::string* why,
                      const std::function<bool(std::string*)>& giveUp) = 0;
    virtual const OffloadCaps& caps() const = 0;
    // After a successful join on every leader: listen for the other leaders' failure notices.
    // Returns non-zero if the notices' receives could not be posted.
    virtual int enableRecovery(const OffloadRecovery& cfg) = 0;
};

// What opening a backend for one leader is given: the PML transport to wrap, the provider
// asked for (coll_hieragg_ofi_provider, "" for the backend's choice), whether progress is
// manual, and the process's world rank (the tests' fault injection).
struct OffloadOpen {
    Transport* pml = nullptr;
    std::string provider;
    bool manualProgress = false;
    int worldRank = 0;
};
// Opens a leader's endpoint (not yet open(): no address); null with *why when the backend
// cannot serve (no provider, none of its operations offered).
using OffloadBackendFn = std::unique_ptr<OffloadEndpoint> (*)(const OffloadOpen& how, std::string* why);

// Registers the backend `name` (a library's static initialiser does, once per process).
bool registerOffloadBackend(const char* name, OffloadBackendFn open);
// The backend registered as `name`, or null when this build has none.
OffloadBackendFn offloadBackend(const char* name);

// The tests' fault injection (tests/mpi/CMakeLists.txt): the environment variable `var`
// names this process's world rank.
inline bool injectedAt(const char* var, int worldRank) {
    const char* v = std::getenv(var);
    return v && *v && std::atoi(v) == worldRank;
}

}  // namespace hieragg
