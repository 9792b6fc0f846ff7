// The cost parameters of a node of `ranks` ranks on `cores` cores with nothing set by the user:
// the defaults, the oversubscribed node's terms (applyNodeOversubscription) and the node's
// cores, as the component's setup makes them before it measures anything.
#pragma once
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/OversubscribedNode.hpp"

namespace hieragg::testing {

inline hier::CostParams oversubscribedNodeCosts(int ranks, int cores) {
    hier::CostParams p = hier::CostParams::defaults();
    const int noneSet[HIERAGG_LINK_CLASS_COUNT] = {};
    hier::applyNodeOversubscription(p, ranks, cores, noneSet);
    p.nodeCores = cores;
    return p;
}

}  // namespace hieragg::testing
