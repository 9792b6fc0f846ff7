// The libfabric offload backend: registered as "ofi" with the runtime
// (hieragg/OffloadBackend.hpp) when this library is linked in (src/CMakeLists.txt links it
// whole into the component, so this initialiser is kept), opened per leader by the offload
// setup.
#include <memory>
#include <string>

#include "OfiFabric.hpp"
#include "OfiTransport.hpp"
#include "hieragg/OffloadBackend.hpp"

namespace hieragg::ofi {

namespace {

std::unique_ptr<OffloadEndpoint> openEndpoint(const OffloadOpen& how, std::string* why) {
    std::shared_ptr<Fabric> fabric = Fabric::open(how.provider, how.manualProgress, why);
    // The tests of the agreement (tests/mpi/CMakeLists.txt): this rank's endpoint fails to open.
    if (injectedAt("HIERAGG_TEST_OFI_FAIL_OPEN", how.worldRank)) {
        *why = "endpoint not opened (HIERAGG_TEST_OFI_FAIL_OPEN)";
        return nullptr;
    }
    if (!fabric) return nullptr;
    if (!fabric->caps().barrier && !fabric->caps().bcast && !fabric->caps().triggered) {
        *why = "provider '" + fabric->name() + "' offers neither fi_barrier, fi_broadcast nor FI_TRIGGER";
        return nullptr;
    }
    return std::make_unique<OfiTransport>(*how.pml, fabric);
}

const bool registered = registerOffloadBackend("ofi", openEndpoint);

}  // namespace

int OfiTransport::enableRecovery(const OffloadRecovery& cfg) {
    RecoveryConfig rc;
    static_cast<OffloadRecovery&>(rc) = cfg;
    rc.group.comm = cfg.comm;
    rc.group.ranks = cfg.leaders;
    rc.group.me = cfg.me;
    rc.group.tagBase = cfg.rerunTagBase;
    return enableRecovery(std::move(rc));
}

}  // namespace hieragg::ofi
