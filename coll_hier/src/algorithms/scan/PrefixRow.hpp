// The start of every prefix unit's cost (scan, exscan rows): the row over the whole
// communicator, on its outermost link, priced as one call of a back-to-back stream
// (model/PrefixModel.hpp).
#pragma once
#include "algorithms/CostQuery.hpp"
#include "model/PrefixModel.hpp"

namespace hieragg::hier::units {

inline Estimate prefixEstimate(const AlgorithmInfo& a, const CostQuery& q) {
    Estimate e;
    e.choice.algo = &a;
    e.choice.members = q.call.size;
    e.choice.link = q.links.back();
    e.streamPriced = true;
    return e;
}

}  // namespace hieragg::hier::units
