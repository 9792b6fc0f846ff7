// The start of every exchange unit's cost (allgather(v), alltoall rows): the row over the
// whole communicator, its messages leaving on the outermost link, and the layout model.
#pragma once
#include "algorithms/CostQuery.hpp"
#include "model/ExchangeModel.hpp"

namespace hieragg::hier::units {

inline Estimate exchangeEstimate(const AlgorithmInfo& a, const CostQuery& q) {
    Estimate e;
    e.choice.algo = &a;
    e.choice.members = q.call.size;
    e.choice.link = q.links.back();
    return e;
}

}  // namespace hieragg::hier::units
