// The prefix model (scan, exscan): every row priced by one call's latency, the time the
// project benchmark measures (perf-compare.sh --sync: each call after a barrier) and the
// prediction its regret report compares. Each message is priced on the link it crosses:
// inside an outermost group of the decomposition its inner link, between groups the
// network; a flat call (not decomposed) has one group, every message on links.back().
// Messages that leave one group in the same round share its link (exchangeBurstUs).
#pragma once
#include "hieragg/CollCall.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "model/ExchangeModel.hpp"
#include "model/MessageCost.hpp"

namespace hieragg::hier::model {

// One message of S bytes handed from one rank to the next, combined on arrival when
// `reduces`: what a ping-pong measures one way (alpha: start-up and the receiver's matching
// of its one message), the bytes, the rendezvous past the eager limit. No theta: that is a
// further message at the same receiver (a burst), and each hop of a chain or a tree round
// brings a rank one message.
inline double prefixRoundUs(const LinkCost& l, double S, bool reduces) {
    return l.alpha_us + S * (l.beta_us_per_byte + (reduces ? l.gamma_us_per_byte : 0.0)) + rendezvousUs(l, S);
}
// A recursive-doubling step: every rank sends to r + d while it receives from r - d (the
// measured exchange round), the bytes, the combine, the rendezvous past the eager limit.
inline double prefixExchangeUs(const LinkCost& l, double S) {
    return exchangeRoundUs(l) + S * (l.beta_us_per_byte + l.gamma_us_per_byte) + rendezvousUs(l, S);
}

// The rank chain (rank i combines and sends to i + 1), `pulses` pulses of `unit` bytes: the
// first pulse crosses every hop on its own link in turn (ExchangeLayout::between), each
// further one a hop behind it, paced by the slowest hop. The hops that cross between
// groups: *crossings.
double chainLatencyUs(const ExchangeLayout& x, double unit, double pulses, int* crossings);

// Recursive doubling over the layout's n ranks, S bytes: in step d every rank r sends to
// r + d. A step in which no message leaves its group is an exchange round on the inner
// link; else an exchange round on the network, where the k messages that leave the busiest
// group (ExchangeLayout::leaving) share its link (exchangeBurstUs, k S beta), their
// rendezvous handshakes side by side (one). The steps that cross between groups: *crossing.
double doublingLatencyUs(const ExchangeLayout& x, double S, int* crossing);

}  // namespace hieragg::hier::model
