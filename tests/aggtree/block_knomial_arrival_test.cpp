// blockKnomialLatestArrival against the tree it stands for: the hierarchical k-nomial tree
// built as the planner built it before (buildHierarchicalKnomialTree, root 0) and priced
// vertex by vertex with the per-edge rule. Equal as doubles, not within a tolerance: the
// planner compares these prices, so a rounding difference could change a decision.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "hieragg/aggtree/BlockKnomialArrival.hpp"
#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"

using namespace hieragg::aggtree;

namespace {

// counts[0] ranks per level-0 group, counts[f] level-(f-1) groups per level-f group, the
// last the outermost groups: level f's group of rank r is r / (counts[0] x .. x counts[f]).
ProcessHierarchy blocks(const std::vector<int>& counts) {
    ProcessHierarchy h;
    h.process_count = std::accumulate(counts.begin(), counts.end(), 1, std::multiplies<int>());
    int size = 1;
    for (size_t f = 0; f + 1 < counts.size(); ++f) {
        size *= counts[f];
        std::vector<int> level(h.process_count);
        for (int r = 0; r < h.process_count; ++r) level[r] = r / size;
        h.levels.push_back(level);
    }
    return h;
}

// The latest arrival over the built tree: the (j+1)-th child (children in rank order) of v
// arrives alpha + handshake + (j + 1) x occupancy of the lowest level whose group holds both
// after v.
double builtTreeLatest(const ProcessHierarchy& h, const Tree& t, const std::vector<HopPrice>& hop) {
    std::vector<double> at(t.size(), 0.0);
    std::vector<int> order{t.root};
    double latest = 0;
    for (size_t i = 0; i < order.size(); ++i) {
        const int v = order[i];
        for (size_t j = 0; j < t.children[v].size(); ++j) {
            const int c = t.children[v][j];
            size_t level = 0;
            while (level < h.levels.size() && h.levels[level][v] != h.levels[level][c]) ++level;
            at[c] = at[v] + hop[level].alpha + hop[level].handshake + static_cast<double>(j + 1) * hop[level].occupancy;
            latest = std::max(latest, at[c]);
            order.push_back(c);
        }
    }
    EXPECT_EQ(order.size(), static_cast<size_t>(t.size())) << "the built tree does not span";
    return latest;
}

std::string describe(const std::vector<int>& counts, int k) {
    std::string s = "counts {";
    for (int m : counts) s += std::to_string(m) + " ";
    return s + "} k " + std::to_string(k);
}

std::vector<int> radices() {
    std::vector<int> ks;
    for (int k = 2; k <= 64; k = k < 16 ? k + 1 : k * 2) ks.push_back(k);
    return ks;
}

}  // namespace

TEST(BlockKnomialArrival, EqualsTheBuiltTreeOverASweep) {
    const std::vector<std::vector<int>> shapes = {
        {1},        {2},          {7},          {64},       {1, 1},     {1, 9},    {9, 1},     {2, 3},
        {4, 4},     {3, 5},       {5, 3},       {8, 8},     {32, 8},    {16, 17},  {31, 4},    {32, 64},
        {2, 1, 3},  {1, 6, 1},    {4, 2, 8},    {3, 3, 3},  {16, 4, 4}, {6, 5, 7}, {2, 2, 2, 2}, {3, 1, 4, 2},
        {2, 2, 2, 2, 2, 2, 2}};
    // Prices of no special form (rounding shows), larger across the outer levels.
    const std::vector<double> alphaOf = {0.37, 13.1, 51.7, 97.3, 143.9, 211.3, 307.1, 401.9};
    const std::vector<double> packetOf = {0.0123, 0.271, 0.913, 1.77, 2.93, 3.31, 4.07, 5.53};
    // A handshake (rendezvous) on some levels only, as a network measured past its eager limit.
    const std::vector<double> handshakeOf = {0.0, 0.0, 7.9, 0.0, 31.3, 0.0, 52.7, 88.1};
    int compared = 0;
    for (const std::vector<int>& counts : shapes) {
        const ProcessHierarchy h = blocks(counts);
        std::vector<HopPrice> hop;
        for (size_t f = 0; f < counts.size(); ++f) hop.push_back({alphaOf[f], handshakeOf[f], packetOf[f]});
        for (int k : radices()) {
            const Tree t = buildHierarchicalKnomialTree(h, k, 0);
            const std::optional<double> closed = blockKnomialLatestArrival(counts, k, hop);
            ASSERT_TRUE(closed.has_value()) << describe(counts, k);
            EXPECT_EQ(*closed, builtTreeLatest(h, t, hop)) << describe(counts, k);
            ++compared;
        }
    }
    EXPECT_EQ(compared, static_cast<int>(shapes.size() * radices().size()));
}

TEST(BlockKnomialArrival, EqualsTheBuiltTreeForRandomPrices) {
    std::mt19937 rng(20261127);
    std::uniform_real_distribution<double> alphaDist(0.0, 60.0), packetDist(0.0, 9.0), handshakeDist(0.0, 90.0);
    std::uniform_int_distribution<int> levelsDist(1, 4), countDist(1, 12);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<int> counts(levelsDist(rng));
        for (int& m : counts) m = countDist(rng);
        std::vector<HopPrice> hop;
        for (size_t f = 0; f < counts.size(); ++f) {
            const double alpha = alphaDist(rng), occupancy = packetDist(rng);
            hop.push_back({alpha, trial % 2 ? handshakeDist(rng) : 0.0, occupancy});
        }
        const int k = radices()[trial % radices().size()];
        const ProcessHierarchy h = blocks(counts);
        const std::optional<double> closed = blockKnomialLatestArrival(counts, k, hop);
        ASSERT_TRUE(closed.has_value()) << describe(counts, k);
        EXPECT_EQ(*closed, builtTreeLatest(h, buildHierarchicalKnomialTree(h, k, 0), hop))
            << describe(counts, k) << " trial " << trial;
    }
}

// Deep hierarchies with a wide k run out of positions where the builder does: 11 levels of
// 2 take 11 base-64 digits (66 bits) > 62, 10 levels take 60.
TEST(BlockKnomialArrival, OverflowsWhereTheBuilderDoes) {
    const std::vector<HopPrice> hop(11, HopPrice{1.5, 0.0, 0.25});
    const std::vector<int> deep(11, 2);
    EXPECT_THROW(buildHierarchicalKnomialTree(blocks(deep), 64, 0), std::overflow_error);
    EXPECT_FALSE(blockKnomialLatestArrival(deep, 64, hop).has_value());
    const std::vector<int> fits(10, 2);
    const std::vector<HopPrice> hop10(10, HopPrice{1.5, 0.0, 0.25});
    const ProcessHierarchy h = blocks(fits);
    const std::optional<double> closed = blockKnomialLatestArrival(fits, 64, hop10);
    ASSERT_TRUE(closed.has_value());
    EXPECT_EQ(*closed, builtTreeLatest(h, buildHierarchicalKnomialTree(h, 64, 0), hop10));
}

// Hand-checked: 2 nodes of 3 ranks, k = 2. Positions: node 0 at 0..2, node 1 at 4..6; tree
// 0 -> {1, 2, 3}, 3 -> {4, 5} (ranks; children in rank order). Node edges 1 + j x 0.5,
// network edges 10 + j x 2: rank 3 arrives at 10 + 3 x 2 = 16 (third child of 0), rank 5 at
// 16 + 1 + 2 x 0.5 = 18, the latest. With a handshake of 7 on the network edges (once per
// hop, not per sibling): rank 3 at 10 + 7 + 3 x 2 = 23, rank 5 at 23 + 1 + 2 x 0.5 = 25.
TEST(BlockKnomialArrival, TwoNodesOfThreeByHand) {
    const std::optional<double> closed = blockKnomialLatestArrival({3, 2}, 2, {{1.0, 0.0, 0.5}, {10.0, 0.0, 2.0}});
    ASSERT_TRUE(closed.has_value());
    EXPECT_EQ(*closed, 18.0);
    const std::optional<double> handshake =
        blockKnomialLatestArrival({3, 2}, 2, {{1.0, 0.0, 0.5}, {10.0, 7.0, 2.0}});
    ASSERT_TRUE(handshake.has_value());
    EXPECT_EQ(*handshake, 25.0);
    EXPECT_EQ(blockKnomialLatestArrival({1}, 2, {{1.0, 0.0, 1.0}}).value(), 0.0);  // one process
}

TEST(BlockKnomialArrival, RejectsBadInput) {
    const HopPrice one{1.0, 0.0, 1.0};
    EXPECT_THROW(blockKnomialLatestArrival({4}, 1, {one}), std::invalid_argument);
    EXPECT_THROW(blockKnomialLatestArrival({4, 0}, 2, {one, one}), std::invalid_argument);
    EXPECT_THROW(blockKnomialLatestArrival({4, 2}, 2, {one}), std::invalid_argument);
}
