// coll_hieragg_offload=ofi: an offloaded leader stage wins wherever it serves (docs/offload.md).
#pragma once
#include "algorithms/CostQuery.hpp"

namespace hieragg::hier::units {

inline Estimate preferredIfAsked(Estimate e, const CostQuery& q) {
    e.preferred = q.call.offload && q.call.offload->preferred;
    if (e.preferred) e.choice.why += "; coll_hieragg_offload=ofi";
    return e;
}

}  // namespace hieragg::hier::units
