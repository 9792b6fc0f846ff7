// This process's contribution to the decomposition: host name and NUMA domain.
#pragma once
#include <string>

#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::hier {

RankIdentity localIdentity(int worldRank);

std::string localHostname();  // gethostname(); "" if it fails
// Logical index of the NUMA node that contains this process's whole CPU binding, or -1
// if the binding spans several NUMA nodes or cannot be queried. The hwloc topology is
// loaded once per process and kept.
int localNumaIndex();

}  // namespace hieragg::hier
