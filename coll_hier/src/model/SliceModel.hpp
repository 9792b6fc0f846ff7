// The allreduce models of the slice compositions (SliceAllreduce.hpp): the ring and the
// butterfly (Rabenseifner's halving + doubling, or recursive doubling of the whole vector),
// with x members of a node sharing its link.
#pragma once
#include <functional>
#include <utility>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "model/ExchangeModel.hpp"

namespace hieragg::hier::model {

// Allreduce of `bytes` over n members whose messages cross link l, x of them at once on
// the busiest link (members of a node sharing its interface), each way at once (the
// exchanges' rate with both directions busy, duplexBetaUs). Pulses of `pulseBytes`
// overlap kPulseWindow at a time: their start-ups overlap, their bytes queue.
double ringAllreduceUs(const LinkCost& l, int n, double bytes, double pulseBytes, double x);
// How many of the busiest node's members send across its link in the butterfly's round at
// distance d (member v with v xor d of the power-of-two core, ButterflyAllreduce.hpp);
// d = 0: the fold (the odd members of the first 2r hand their vector to the even one below).
using ButterflyCrossing = std::function<int(int d)>;
// The flat butterfly's crossing over the layout's ranks (ButterflyAllreduce's numbering):
// 1 for every round when the call is not decomposed (one node: its link is the "network").
ButterflyCrossing butterflyCrossingOf(const ExchangeLayout& x);
// The butterfly on the largest power of two p2 <= n (the others fold in and out): halving +
// doubling (Rabenseifner) or recursive doubling of the whole vector, round by round. A round
// in which x > 0 of the busiest node's members send across `net` is an exchange round there
// and the burst of the further x - 1 (exchangeBurstUs, as doublingRoundsUs), its bytes x at a
// time each way (exchangeRoundTransferUs: duplexBetaUs), and a pulse's message past the eager
// limit pays the rendezvous; a round that stays in the node moves its bytes on `in` but
// starts as a network round (docs/selection.md). Pulses of `pulseBytes` overlap
// kPulseWindow at a time: start-ups and rendezvous once per window, bytes queue.
// burst false: a round's x messages start as one exchange round, no burst (the multi-leader
// columns, whose ring ringAllreduceUs prices so: the two rows compare on the same terms).
double butterflyAllreduceUs(const LinkCost& net, const LinkCost& in, int n, double bytes, double pulseBytes,
                            const ButterflyCrossing& crossing, bool halving, bool burst = true);

// Reduce_scatter by recursive halving (tuned's and the `recursive_halving` row's: no pulses)
// over the largest power of two p2 <= n: the round at distance d trades d/p2 of the vector,
// priced as butterflyAllreduceUs's halving rounds (crossing, burst, rendezvous, the node
// link for a round that stays home); the fold's whole vector in and one block (1/n) out,
// one way each; (p2 - 1)/p2 of the vector reduced (+ all of it on the folded pairs).
// Returns {start-ups (rendezvous included), bytes' time (moved and reduced)}.
std::pair<double, double> butterflyReduceScatterUs(const LinkCost& net, const LinkCost& in, int n, double bytes,
                                                   const ButterflyCrossing& crossing);

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
