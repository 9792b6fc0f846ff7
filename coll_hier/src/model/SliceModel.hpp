// The allreduce models of the slice compositions (SliceAllreduce.hpp): the ring and the
// butterfly (Rabenseifner's halving + doubling, or recursive doubling of the whole vector),
// with x members of a node sharing its link.
#pragma once
#include "hieragg/hier/CostParams.hpp"

namespace hieragg::hier::model {

// Allreduce of `bytes` over n members whose messages cross link l, x of them at once on
// the busiest link (members of a node sharing its interface). Pulses of `pulseBytes`
// overlap kPulseWindow at a time: their start-ups overlap, their bytes queue.
double ringAllreduceUs(const LinkCost& l, int n, double bytes, double pulseBytes, double x);
// The butterfly on the largest power of two p2 <= n (the others fold in and out):
// halving + doubling (Rabenseifner) or recursive doubling of the whole vector.
double butterflyAllreduceUs(const LinkCost& l, int n, double bytes, double pulseBytes, double x, bool halving);

}  // namespace hieragg::hier::model
