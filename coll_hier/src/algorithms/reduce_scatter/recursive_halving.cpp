// Reduce_scatter(_block) `recursive_halving` (ReduceScatter.cpp): log2 p halving rounds
// without a root, empty halves not sent (short vectors).
#include <cmath>
#include <utility>

#include "algorithms/Row.hpp"
#include "model/ExchangeModel.hpp"
#include "model/SliceModel.hpp"
#include "hieragg/algorithms/ButterflyAllreduce.hpp"
#include "recipes/ReduceScatterPulses.hpp"

namespace hieragg::hier::units {

// reduce_scatter's `recursive_halving` row (ReduceScatter.cpp) on n ranks of one link class,
// vector of `bytes`: log2 p2 rounds, each one message of the half kept (halves of halves:
// (p2 - 1)/p2 of the vector in all), received and combined; with a fold (n not a power of
// two) the whole vector in first and one block back out. Returns {start-ups, bytes}.
static std::pair<double, double> halvingReduceScatterUs(const LinkCost& l, int n, double bytes) {
    if (n <= 1) return {0, 0};
    const int p2 = butterflyCore(n);
    const double rounds = std::log2(static_cast<double>(p2)), fold = p2 == n ? 0.0 : 1.0;
    const double perByte = l.beta_us_per_byte + l.gamma_us_per_byte;
    return {(rounds + 2 * fold) * (l.alpha_us + l.theta_us),
            bytes * ((p2 - 1.0) / p2 * perByte + fold * (perByte + l.beta_us_per_byte / n))};
}

// Inside one node a pair per round (no root: the oversubscribed node's alpha already holds
// the wait for the partner's turn). Across nodes round by round, as Rabenseifner's halving
// (butterflyReduceScatterUs): a round whose partners are on other nodes is an exchange round
// with the busiest node's crossing messages sharing its link both ways, a round between
// ranks of one node moves its bytes on the node link. Latency-bound vectors only (start-ups
// above the bytes' time), as tuned keeps it to short messages: it holds two copies of the
// whole vector and does not pipeline, and on 8 ranks of 2 cores at 64 KiB the trees stayed
// ahead of it.
static Estimate cost(const AlgorithmInfo& a, const CostQuery& q) {
    const SliceLayout x = sliceLayoutOf(q.call, q.params, q.links);
    Estimate e = callEstimate(a, q);
    const std::pair<double, double> us =
        x.hier ? butterflyReduceScatterUs(*x.net, *x.in, x.n, q.bytes,
                                          butterflyCrossingOf(exchangeLayoutOf(q.call, q.params, q.links)))
               : halvingReduceScatterUs(*x.net, x.n, q.bytes);
    e.choice.predUs = us.second > us.first ? kInf : us.first + us.second;
    e.choice.why = x.hier ? "log2 p halving rounds, no root, a node's ranks whose partner is outside share its link"
                          : "log2 p halving rounds, no root";
    return e;
}
constexpr unsigned kNeeds = kNeedsIntracomm | kNeedsCommutativeOp;
constexpr const char* kSummary = "log2 p halving rounds without a root, empty halves not sent (short vectors)";

static std::optional<Schedule> build(const CollCall& c, const Plan&) {
    const recipes::ResultBlocks x = recipes::resultBlocksOf(c);
    return recipes::halvingReduceScatter(c, x.counts, x.displs, x.total);
}

extern const AlgorithmInfo reduce_scatter_recursive_halving = {HIERAGG_REDUCE_SCATTER, "recursive_halving",
                                                               kServesFlat, kNeeds, 0, 0,
                                                               K::Knomial, kSummary, Pricing::Alone, cost, build};
extern const AlgorithmInfo reduce_scatter_block_recursive_halving = {
    HIERAGG_REDUCE_SCATTER_BLOCK, "recursive_halving", kServesFlat, kNeeds, 0, 0, K::Knomial,
    kSummary, Pricing::Alone, cost, build};

}  // namespace hieragg::hier::units
