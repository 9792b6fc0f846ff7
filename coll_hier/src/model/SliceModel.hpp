// The allreduce models of the slice compositions (SliceAllreduce.hpp): the ring and the
// butterfly (Rabenseifner's halving + doubling, or recursive doubling of the whole vector),
// with x members of a node sharing its link.
#pragma once
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/hier/CostParams.hpp"

namespace hieragg::hier::model {

// Allreduce of `bytes` over n members whose messages cross link l, x of them at once on
// the busiest link (members of a node sharing its interface), each way at once (the
// exchanges' rate with both directions busy, duplexBetaUs). Pulses of `pulseBytes`
// overlap kPulseWindow at a time: their start-ups overlap, their bytes queue.
double ringAllreduceUs(const LinkCost& l, int n, double bytes, double pulseBytes, double x);
// The butterfly on the largest power of two p2 <= n (the others fold in and out):
// halving + doubling (Rabenseifner) or recursive doubling of the whole vector.
double butterflyAllreduceUs(const LinkCost& l, int n, double bytes, double pulseBytes, double x, bool halving);

// Where a slice composition's messages go: the outermost groups (G of them, sizes between S
// and M), the ring hops leaving the busiest one (cross), the network and the link inside a
// group; one group of n when the call is not decomposed.
struct SliceLayout {
    bool hier = false;
    int n = 1, G = 1, S = 1, M = 1, cross = 1;
    double seg = 1;  // coll_hieragg_segment_size (at least 1)
    int link = kLinkNode;            // the outermost link class
    const LinkCost* net = nullptr;   // its costs
    const LinkCost* in = nullptr;    // inside the outermost groups (hier only)
};
// `links`: the link class of every stage ({kLinkNode} when not decomposed).
SliceLayout sliceLayoutOf(const CollCall& c, const CostParams& p, const std::vector<int>& links);

}  // namespace hieragg::hier::model
