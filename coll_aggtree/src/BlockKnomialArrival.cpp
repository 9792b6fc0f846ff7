#include "hieragg/aggtree/BlockKnomialArrival.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "hieragg/aggtree/KnomialTree.hpp"

namespace hieragg::aggtree {

namespace {

// buildHierarchicalKnomialTree's position limit (HierarchicalKnomialTree.cpp).
constexpr std::uint64_t kPositionLimit = std::uint64_t{1} << 62;

}  // namespace

std::optional<double> blockKnomialLatestArrival(const std::vector<int>& counts, int k,
                                                const std::vector<HopPrice>& hop) {
    if (k < 2) throw std::invalid_argument("blockKnomialLatestArrival: k must be >= 2");
    if (hop.size() != counts.size())
        throw std::invalid_argument("blockKnomialLatestArrival: counts and hop differ in length");
    for (int m : counts)
        if (m < 1) throw std::invalid_argument("blockKnomialLatestArrival: a group count is below 1");

    // Where the builder runs out of positions: each field grows the position count by k
    // until it holds counts[f] blocks, innermost first, with the builder's own check.
    std::uint64_t positions = 1;
    for (int m : counts)
        for (std::uint64_t blocks = 1; blocks < static_cast<std::uint64_t>(m); blocks *= static_cast<std::uint64_t>(k)) {
            if (positions > kPositionLimit / static_cast<std::uint64_t>(k)) return std::nullopt;
            positions *= static_cast<std::uint64_t>(k);
        }

    // before[f]: children a vertex has in the fields below f (they come first in rank order).
    std::vector<int> before(counts.size(), 0);
    for (size_t f = 1; f < counts.size(); ++f)
        before[f] = before[f - 1] +
                    static_cast<int>(knomialChildPositions(0, k, static_cast<std::uint64_t>(counts[f - 1])).size());

    double latest = 0;  // the root's arrival, then the latest vertex's whose lower fields are zero
    std::vector<double> at;
    for (size_t f = counts.size(); f-- > 0;) {
        const std::uint64_t m = static_cast<std::uint64_t>(counts[f]);
        if (m <= 1) continue;
        at.assign(m, 0.0);
        at[0] = latest;
        // Parents precede their children (a child's position is larger); children in
        // increasing order, which is rank order, after the `before[f]` of the lower fields.
        for (std::uint64_t v = 0; v < m; ++v) {
            int j = before[f];
            for (const std::uint64_t c : knomialChildPositions(v, k, m)) {
                // The expression of the per-edge model (hier::model::wholeTreeUs), term for term.
                at[c] = hop[f].arrivalUs(at[v], static_cast<double>(j + 1));
                latest = std::max(latest, at[c]);
                ++j;
            }
        }
    }
    return latest;
}

}  // namespace hieragg::aggtree
