// Host name via gethostname, NUMA domain via hwloc.
#include "hieragg/hier/LocalIdentity.hpp"

#include <hwloc.h>
#include <unistd.h>

#include <climits>
#include <mutex>

namespace hieragg::hier {

namespace {

// Loaded once and never destroyed: identities may be queried until MPI_Finalize, and
// loading a topology costs milliseconds. nullptr if hwloc cannot load one.
hwloc_topology_t processTopology() {
    static hwloc_topology_t topology = nullptr;
    static std::once_flag once;
    std::call_once(once, [] {
        hwloc_topology_t t = nullptr;
        if (hwloc_topology_init(&t) != 0) return;
        if (hwloc_topology_load(t) != 0) {
            hwloc_topology_destroy(t);
            return;
        }
        topology = t;
    });
    return topology;
}

}  // namespace

std::string localHostname() {
    char name[HOST_NAME_MAX + 1] = {};
    if (gethostname(name, sizeof name - 1) != 0) return {};
    return name;
}

int localNumaIndex() {
    hwloc_topology_t topology = processTopology();
    if (!topology) return -1;
    hwloc_bitmap_t binding = hwloc_bitmap_alloc();
    if (!binding) return -1;
    int result = -1;
    // The binding can change (e.g. a runtime rebinding the process), so it is queried each time.
    if (hwloc_get_cpubind(topology, binding, HWLOC_CPUBIND_PROCESS) == 0 ||
        hwloc_get_cpubind(topology, binding, HWLOC_CPUBIND_THREAD) == 0) {
        if (!hwloc_bitmap_iszero(binding)) {
            int matches = 0;
            const int count = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
            for (int i = 0; i < count; ++i) {
                hwloc_obj_t numa = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
                if (numa && numa->cpuset && hwloc_bitmap_isincluded(binding, numa->cpuset)) {
                    ++matches;
                    result = static_cast<int>(numa->logical_index);
                }
            }
            if (matches != 1) result = -1;
        }
    }
    hwloc_bitmap_free(binding);
    return result;
}

RankIdentity localIdentity(int worldRank) {
    RankIdentity id;
    id.worldRank = worldRank;
    id.hostname = localHostname();
    id.numa = localNumaIndex();
    return id;
}

}  // namespace hieragg::hier
