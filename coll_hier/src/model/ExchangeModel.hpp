// The layout model of the exchanges (allgather(v), alltoall): the whole communicator at once
// (ring / pairwise / butterfly rounds) or through the outermost leaders (hierarchical rows).
// What separates them is the network interface a node's ranks share: flat, every rank's
// messages to other nodes queue on it; through the leaders, one aggregated message per
// pair of nodes.
#pragma once
#include <functional>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "model/MessageCost.hpp"

namespace hieragg::hier::model {

struct ExchangeLayout {
    int n = 1;
    bool hier = false;
    const Hierarchy* h = nullptr;  // hier only
    int groups = 1;                // outermost groups
    int m = 1;                     // ranks of the largest one (n when not decomposed)
    std::vector<int> crossers;     // per outermost group: ranks whose ring successor is outside
    // A crowded node (more ranks than cores): what a row sends inside the node while its
    // network transfers run takes the cores that also drive those transfers, so it adds to
    // them instead of hiding behind them, and the node's m ranks share its cores for it.
    bool crowded = false;
    double steps = 0;  // n - 1
    double lg = 0;     // ceil(log2 m)
    const LinkCost* in = nullptr;   // inside an outermost group (a node)
    const LinkCost* net = nullptr;  // between the outermost groups

    // Whether ranks a and b are in different outermost groups, and the link a message
    // between them crosses (net, else in).
    bool crosses(int a, int b) const { return hier && h->groupOf(h->levels() - 1, a) != h->groupOf(h->levels() - 1, b); }
    const LinkCost& between(int a, int b) const { return crosses(a, b) ? *net : *in; }

    // Per outermost group: how many of its ranks send to a partner outside it, where rank r
    // sends to partnerOf(r) (a value >= n: no partner).
    std::vector<int> leaving(const std::function<int(int)>& partnerOf) const;
    // The most ring hops leaving one group (0 when not decomposed).
    int ringCross() const;
};

// `links`: the link class of every stage ({kLinkNode} when not decomposed); `in` is the link
// of the stage below the outermost (links[size - 2]), the slowest a message inside one group
// crosses.
ExchangeLayout exchangeLayoutOf(const CollCall& c, const CostParams& p, const std::vector<int>& links);

// The bytes of one exchange round of recursive doubling or Bruck in which every rank sends
// `bytes` to its partner: where x of the busiest node's ranks have theirs on another node,
// the x messages queue on its link, each way at once (the partners on the other node send
// theirs back: duplexBetaUs), each past the eager limit with its rendezvous; where none does,
// the round stays in the node. (Before,
// every round was priced as crossing: Bruck on 2 x 4 round robin, whose rounds at distance
// 2 and 4 stay home, looked six times slower than it runs.)
double exchangeRoundBytesUs(const LinkCost& net, const LinkCost& in, int x, double bytes);
// Its bytes alone (without the rendezvous), for rows whose messages are pulses of `bytes`:
// they queue, while each pulse window pays its rendezvous once.
double exchangeRoundTransferUs(const LinkCost& net, const LinkCost& in, int x, double bytes);

// log2 n exchanges of 1, 2, 4 ... blocks of S bytes (recursive doubling: partner r xor d;
// Bruck: r + d). A round costs a network start-up only where some rank's partner is on
// another node, and the busiest node's crossing messages go out together; the others stay
// inside the node. Recursive doubling on blocks of 2 keeps its first round home, Bruck's
// rotations cross in every round (4x2 block, 8 B allgatherv: 945 us on Bruck vs 609 us on
// allgather's recursive doubling at the same old prediction).
double doublingRoundsUs(const ExchangeLayout& x, double S, bool bruck);

}  // namespace hieragg::hier::model
