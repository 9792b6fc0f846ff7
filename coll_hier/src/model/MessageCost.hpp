// One message of `bytes` on link l as its receiver handles it: theta + bytes beta, and the
// rendezvous past the link's eager limit (CostParams.hpp).
#pragma once
#include "hieragg/hier/CostParams.hpp"

namespace hieragg::hier::model {

inline double messageUs(const LinkCost& l, double bytes) { return l.theta_us + bytes * l.beta_us_per_byte + rendezvousUs(l, bytes); }
// The same message in a step in which link l carries data both ways at once (a ring's or an
// exchange's step: the receiver's node sends across it too): its bytes at the link's rate each
// way with both directions busy (duplexBetaUs).
inline double duplexMessageUs(const LinkCost& l, double bytes) {
    return l.theta_us + bytes * duplexBetaUs(l) + rendezvousUs(l, bytes);
}

}  // namespace hieragg::hier::model
