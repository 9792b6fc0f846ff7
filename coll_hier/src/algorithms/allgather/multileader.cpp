// Allgather(v) `multileader` (MultiLeaderAllgather.hpp): member j of every node a column ring
// between nodes, the m columns' rings sharing each node's link, (L - 1) steps of m blocks;
// every member forwards each of the L blocks it holds to the m - 1 others of its node while
// the rings go on; the last piece's forwards end it.
#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/WhyText.hpp"
#include "recipes/MultiLeaderAllgather.hpp"
#include "recipes/DataMovement.hpp"
#include "recipes/GatheredBlocks.hpp"

namespace hieragg::hier::units {

static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const ExchangeLayout x = exchangeLayoutOf(q.call, q.params, q.links);  // decomposed (needs)
    const CollCall& c = q.call;
    const LinkCost &in = *x.in, &net = *x.net;
    const double S = q.bytes, L = x.groups;
    const int m = x.m;
    const size_t elem = std::max<size_t>(1, c.rtype.size);
    const double piece = std::min(
        S, static_cast<double>(recipes::multiLeaderPiece(static_cast<size_t>(S) / elem, elem, c.segmentBytes,
                                                         x.groups) * elem));
    // Pieces pipeline around the ring: L - 1 hops plus the pieces behind the first.
    const double pieces = std::ceil(S / std::max(piece, 1.0));
    // The m columns' pieces of one hop leave a node together: a burst on its link, while as
    // many arrive (the link busy both ways: duplexBetaUs).
    const double ring = (L - 1) * exchangeStartUs(net) +
                        (L - 2 + pieces) * (crossingUs(net, m) + m * piece * duplexBetaUs(net) + rendezvousUs(net, piece));
    const double local = (m - 1) * L * messageUs(in, S);
    // Crowded node: the forwards add to the rings (2 x 4 round robin, 4 MiB: 245-290 ms
    // against 170-230 for Bruck and recursive doubling, whose crossing round runs alone
    // and whose node rounds follow it).
    const double forwards = x.crowded ? local * m / q.params.nodeCores : local;
    Estimate e = callEstimate(a, q);
    e.choice.predUs =
        (x.crowded ? ring + forwards : std::max(ring, local)) + (m - 1) * (in.alpha_us + messageUs(in, piece));
    e.choice.why = std::to_string(m) + " column rings of " + std::to_string(x.groups) + " nodes " +
                   fmt("%.1f", ring) + " us vs node forwards " + fmt("%.1f", local) + " us";
    return e;
}
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsDecomposition | kNeedsEqualGroups;
constexpr const char* kSummary =
    "member j of every node a column ring between nodes, pieces forwarded into the node as they arrive";

// Over the decomposition only (else the recipe's flat ring runs).
static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    return recipes::buildOverLeaders(c, "multileader-allgather", [&](const recipes::GatheredBlocks& blocks) {
        return recipes::multiLeaderAllgather(c, [&](int r) { return blocks.of(r); }, blocks.mine());
    });
}

extern const AlgorithmInfo allgather_multileader = {HIERAGG_ALLGATHER, "multileader", kServesWhole, kNeeds,
                                                    kTunesSegment, 0, K::Knomial,
                                                    kSummary, Pricing::Alone, cost, build};
extern const AlgorithmInfo allgatherv_multileader = {HIERAGG_ALLGATHERV, "multileader", kServesWhole, kNeeds,
                                                     kTunesSegment, 0, K::Knomial,
                                                     kSummary, Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
