// equalBlockCounts: the radices of a hierarchy of equal blocks of consecutive ranks, and
// nothing for any other hierarchy (the planner then builds each candidate tree).
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"

using hieragg::hier::equalBlockCounts;
using hieragg::hier::Hierarchy;

namespace {

std::vector<int64_t> keys(int n, int64_t (*key)(int)) {
    std::vector<int64_t> out;
    for (int r = 0; r < n; ++r) out.push_back(key(r));
    return out;
}

}  // namespace

TEST(EqualBlockCounts, NodesOfConsecutiveRanks) {
    const Hierarchy h = Hierarchy::fromKeys(96, {keys(96, [](int r) { return int64_t{r / 32}; })});
    EXPECT_EQ(equalBlockCounts(h).value_or(std::vector<int>{}), (std::vector<int>{32, 3}));
}

TEST(EqualBlockCounts, TwoLevels) {
    // numa of 4 inside nodes of 16, 64 ranks: 4 ranks, 4 numa domains per node, 4 nodes.
    const Hierarchy h = Hierarchy::fromKeys(
        64, {keys(64, [](int r) { return int64_t{r / 4}; }), keys(64, [](int r) { return int64_t{r / 16}; })});
    EXPECT_EQ(equalBlockCounts(h).value_or(std::vector<int>{}), (std::vector<int>{4, 4, 4}));
}

TEST(EqualBlockCounts, FlatAndOneGroup) {
    EXPECT_EQ(equalBlockCounts(Hierarchy::flat(7)).value_or(std::vector<int>{}), (std::vector<int>{1, 7}));
    const Hierarchy one = Hierarchy::fromKeys(5, {keys(5, [](int) { return int64_t{0}; })});
    EXPECT_EQ(equalBlockCounts(one).value_or(std::vector<int>{}), (std::vector<int>{5, 1}));
}

TEST(EqualBlockCounts, NothingForOtherLayouts) {
    // Round robin over 4 nodes: equal groups, not consecutive.
    EXPECT_FALSE(equalBlockCounts(Hierarchy::fromKeys(16, {keys(16, [](int r) { return int64_t{r % 4}; })})));
    // Consecutive, unequal: 3 + 3 + 2.
    EXPECT_FALSE(equalBlockCounts(Hierarchy::fromKeys(8, {keys(8, [](int r) { return int64_t{r / 3}; })})));
    // Equal sizes, one group not consecutive: {0, 1, 4, 5} and {2, 3, 6, 7}.
    EXPECT_FALSE(equalBlockCounts(Hierarchy::fromKeys(8, {keys(8, [](int r) { return int64_t{(r / 2) % 2}; })})));
    // Equal consecutive nodes, unequal outer level: nodes of 2, switches of 4 + 2.
    EXPECT_FALSE(equalBlockCounts(Hierarchy::fromKeys(
        6, {keys(6, [](int r) { return int64_t{r / 2}; }), keys(6, [](int r) { return int64_t{r / 4}; })})));
}
