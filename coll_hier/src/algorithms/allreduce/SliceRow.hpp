// The start of every slice composition unit's cost (allreduce's and the reduce_scatters'
// rows without a root): the row over the whole communicator, on its outermost link.
#pragma once
#include "algorithms/CostQuery.hpp"
#include "model/SliceModel.hpp"

namespace hieragg::hier::units {

inline Estimate sliceEstimate(const AlgorithmInfo& a, const CostQuery& q, const model::SliceLayout& x) {
    Estimate e;
    e.choice.algo = &a;
    e.choice.members = q.call.size;
    e.choice.link = x.link;
    return e;
}

}  // namespace hieragg::hier::units
