// One message of `bytes` on link l as its receiver handles it: theta + bytes beta, and the
// rendezvous past the link's eager limit (CostParams.hpp).
#pragma once
#include "hieragg/hier/CostParams.hpp"

namespace hieragg::hier::model {

inline double messageUs(const LinkCost& l, double bytes) { return l.theta_us + bytes * l.beta_us_per_byte + rendezvousUs(l, bytes); }

}  // namespace hieragg::hier::model
