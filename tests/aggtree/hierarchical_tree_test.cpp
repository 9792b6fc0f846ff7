// Hierarchical minimum-height k-nomial tree: group property on random hierarchies,
// minimum height against exhaustive search, the SPEC's 14-process example.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <random>

#include "hieragg/aggtree/GroupLeaderKnomialTree.hpp"
#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"

using namespace hieragg::aggtree;

namespace {

// Random hierarchy: shuffled ranks cut into leaf groups of 1..maxLeaf, then at each
// outer level consecutive groups are cut into chunks of 1..4 groups.
ProcessHierarchy randomHierarchy(std::mt19937& rng, int P, int depth, int maxLeaf) {
    ProcessHierarchy h;
    h.process_count = P;
    std::vector<int> ranks(P);
    std::iota(ranks.begin(), ranks.end(), 0);
    std::shuffle(ranks.begin(), ranks.end(), rng);
    std::vector<int> level0(P);
    std::vector<std::vector<int>> groups;  // members of each group at the current level
    for (int i = 0; i < P;) {
        int n = std::min(P - i, std::uniform_int_distribution<int>(1, maxLeaf)(rng));
        groups.emplace_back(ranks.begin() + i, ranks.begin() + i + n);
        for (int j = i; j < i + n; ++j) level0[ranks[j]] = static_cast<int>(groups.size()) * 7 + 3;  // arbitrary ids
        i += n;
    }
    h.levels.push_back(level0);
    for (int d = 1; d < depth; ++d) {
        std::vector<int> level(P);
        std::vector<std::vector<int>> outer;
        for (size_t i = 0; i < groups.size();) {
            size_t n = std::min(groups.size() - i, static_cast<size_t>(std::uniform_int_distribution<int>(1, 4)(rng)));
            outer.emplace_back();
            for (size_t j = i; j < i + n; ++j) outer.back().insert(outer.back().end(), groups[j].begin(), groups[j].end());
            for (int r : outer.back()) level[r] = static_cast<int>(outer.size()) - 1;
            i += n;
        }
        h.levels.push_back(level);
        groups = std::move(outer);
    }
    return h;
}

// Every group of every level (and the whole set): exactly one member has its parent
// outside the group (or is the root) — and if the group holds the root, that member is the root.
::testing::AssertionResult groupPropertyHolds(const ProcessHierarchy& h, const Tree& t) {
    const int P = h.process_count;
    auto levels = h.levels;
    levels.push_back(std::vector<int>(P, 0));
    for (size_t j = 0; j < levels.size(); ++j) {
        std::map<int, std::vector<int>> groups;
        for (int r = 0; r < P; ++r) groups[levels[j][r]].push_back(r);
        for (auto& [id, members] : groups) {
            std::vector<int> leaders;
            for (int r : members) {
                int p = t.parent[r];
                if (p == Tree::kNone || levels[j][p] != id) leaders.push_back(r);
            }
            bool hasRoot = std::find(members.begin(), members.end(), t.root) != members.end();
            if (leaders.size() != 1 || (hasRoot && leaders[0] != t.root))
                return ::testing::AssertionFailure()
                       << "level " << j << " group " << id << " has " << leaders.size() << " members leaving it";
        }
    }
    return ::testing::AssertionSuccess();
}

// Independent position arithmetic for the exhaustive search.
std::uint64_t clearLowestDigit(std::uint64_t v, int k) {
    std::uint64_t w = 1;
    while ((v / w) % k == 0) w *= k;
    return v - ((v / w) % k) * w;
}

// Exhaustive search space: every injective placement of the P processes on the positions
// [0, N) of a k-nomial position tree, root at position 0; the tree is derived by "parent =
// process at the nearest occupied ancestor position"; placements whose tree breaks the group
// property are discarded. This contains every assignment of groups to aligned blocks within
// N positions. Returns the smallest exponent e such that some placement fits in N = k^e, i.e.
// the minimum height of the k-nomial tree the processes are laid out on.
// Fills positions 1..N−1 in increasing order, each with nothing or an unplaced process.
// A position's ancestors are smaller, so its parent is known when it is filled, and the
// group property can be checked at once: a group's leader is its member at the smallest
// position, every later member must have its parent inside the group.
bool placementExists(const ProcessHierarchy& h, int k, int root, std::uint64_t N) {
    const int P = h.process_count;
    auto levels = h.levels;
    levels.push_back(std::vector<int>(P, 0));
    std::map<std::pair<size_t, int>, int> placedInGroup;
    std::vector<int> at(N, -1);
    std::vector<bool> placed(P, false);
    at[0] = root;
    placed[root] = true;
    for (size_t j = 0; j < levels.size(); ++j) ++placedInGroup[{j, levels[j][root]}];
    int remaining = P - 1;
    std::function<bool(std::uint64_t)> fill = [&](std::uint64_t p) {
        if (remaining == 0) return true;
        if (static_cast<std::uint64_t>(remaining) > N - p) return false;
        std::uint64_t q = p;
        do q = clearLowestDigit(q, k);
        while (at[q] < 0);
        const int parent = at[q];
        for (int x = 0; x < P; ++x) {
            if (placed[x]) continue;
            bool ok = true;
            for (size_t j = 0; j < levels.size() && ok; ++j)
                if (placedInGroup[{j, levels[j][x]}] > 0 && levels[j][parent] != levels[j][x]) ok = false;
            if (!ok) continue;
            at[p] = x;
            placed[x] = true;
            --remaining;
            for (size_t j = 0; j < levels.size(); ++j) ++placedInGroup[{j, levels[j][x]}];
            bool found = fill(p + 1);
            for (size_t j = 0; j < levels.size(); ++j) --placedInGroup[{j, levels[j][x]}];
            ++remaining;
            placed[x] = false;
            at[p] = -1;
            if (found) return true;
        }
        return fill(p + 1);  // leave p empty
    };
    return fill(1);
}

int exhaustiveMinimumExponent(const ProcessHierarchy& h, int k, int root) {
    std::uint64_t N = 1;
    for (int e = 0;; ++e, N *= k)
        if (N >= static_cast<std::uint64_t>(h.process_count) && placementExists(h, k, root, N)) return e;
}

int exponentOf(std::uint64_t cnt, int k) {
    int e = 0;
    for (; cnt > 1; cnt /= k) ++e;
    return e;
}

// cnt of the simple method laid out on positions: every child group gets a block of the
// largest child's size, m children need k^⌈log_k m⌉ such blocks.
std::uint64_t uniformBlockCnt(const std::vector<std::uint64_t>& childCnts, int k) {
    std::uint64_t blocks = 1, largest = 1;
    while (blocks < childCnts.size()) blocks *= k;
    for (auto c : childCnts) largest = std::max(largest, c);
    return blocks * largest;
}

ProcessHierarchy fromGroupSizes(const std::vector<int>& sizes) {
    ProcessHierarchy h;
    h.process_count = std::accumulate(sizes.begin(), sizes.end(), 0);
    std::vector<int> level;
    for (size_t g = 0; g < sizes.size(); ++g) level.insert(level.end(), sizes[g], static_cast<int>(g));
    h.levels.push_back(level);
    return h;
}

}  // namespace

TEST(HierarchicalKnomialTree, GroupPropertyOnRandomHierarchies) {
    std::mt19937 rng(2024);
    for (int seed = 0; seed < 400; ++seed) {
        int P = std::uniform_int_distribution<int>(1, 300)(rng);
        int depth = std::uniform_int_distribution<int>(1, 3)(rng);
        int maxLeaf = std::uniform_int_distribution<int>(1, 9)(rng);
        int k = std::uniform_int_distribution<int>(2, 9)(rng);
        int root = std::uniform_int_distribution<int>(0, P - 1)(rng);
        ProcessHierarchy h = randomHierarchy(rng, P, depth, maxLeaf);
        Tree t = buildHierarchicalKnomialTree(h, k, root);
        ASSERT_EQ(t.size(), P);
        ASSERT_TRUE(t.isValid()) << "seed " << seed;
        ASSERT_EQ(t.root, root);
        ASSERT_TRUE(groupPropertyHolds(h, t)) << "seed " << seed << " P=" << P << " k=" << k;
        Tree simple = buildGroupLeaderKnomialTree(h, k, root);
        ASSERT_TRUE(simple.isValid());
        ASSERT_TRUE(groupPropertyHolds(h, simple));
        // The simple method laid out on positions (uniform blocks per level) is one particular
        // hierarchical k-nomial layout, so the merged layout can't need more positions.
        std::map<int, std::uint64_t> cnt;  // group id -> uniform cnt, level by level
        {
            std::map<int, int> sizes;
            for (int r = 0; r < P; ++r) ++sizes[h.levels[0][r]];
            for (auto& [id, n] : sizes) cnt[id] = uniformBlockCnt(std::vector<std::uint64_t>(n, 1), k);
            for (size_t j = 1; j <= h.levels.size(); ++j) {
                std::map<int, std::vector<std::uint64_t>> children;
                std::map<int, bool> seen;
                for (int r = 0; r < P; ++r) {
                    int inner = h.levels[j - 1][r], outer = j < h.levels.size() ? h.levels[j][r] : 0;
                    if (!seen[inner]) children[outer].push_back(cnt[inner]), seen[inner] = true;
                }
                cnt.clear();
                for (auto& [id, c] : children) cnt[id] = uniformBlockCnt(c, k);
            }
        }
        ProcessGroup top = buildRankMapping(h, k, root);
        EXPECT_LE(top.cnt, cnt.at(0)) << "seed " << seed;
        // Actual heights (empty positions skipped) are NOT ordered: first-fit may put a group
        // in a deep hole. Both stay within the k-nomial height of the layout.
        EXPECT_LE(t.height(), exponentOf(top.cnt, k));
    }
}

TEST(HierarchicalKnomialTree, MappingPlacesEveryGroupInAnAlignedBlock) {
    std::mt19937 rng(99);
    for (int seed = 0; seed < 50; ++seed) {
        int P = std::uniform_int_distribution<int>(1, 120)(rng);
        int k = std::uniform_int_distribution<int>(2, 5)(rng);
        ProcessHierarchy h = randomHierarchy(rng, P, 2, 6);
        ProcessGroup top = buildRankMapping(h, k, 0);
        ASSERT_EQ(top.ranks.size(), static_cast<size_t>(P));
        std::vector<std::uint64_t> pos(P);
        for (int i = 0; i < P; ++i) pos[top.ranks[i]] = top.nodes_id[i];
        std::vector<std::uint64_t> sorted(pos);
        std::sort(sorted.begin(), sorted.end());
        ASSERT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) << "two ranks share a position";
        for (auto& level : h.levels) {
            std::map<int, std::vector<int>> groups;
            for (int r = 0; r < P; ++r) groups[level[r]].push_back(r);
            for (auto& [id, m] : groups) {
                std::uint64_t lo = ~0ULL, hi = 0;
                for (int r : m) lo = std::min(lo, pos[r]), hi = std::max(hi, pos[r]);
                std::uint64_t cnt = 1;
                while (lo / cnt != hi / cnt) cnt *= k;  // smallest aligned block holding them all
                EXPECT_EQ(lo % cnt, 0u) << "group leader must sit at its block start";
            }
        }
    }
}

// Unrooted (any process may lead, as in the paper): the greedy's layout height equals the
// exhaustive minimum over every choice of root.
TEST(HierarchicalKnomialTree, UnrootedMinimumKnomialHeightMatchesExhaustiveSearch) {
    std::mt19937 rng(5);
    struct Case { int k, maxP, trials; };
    int mismatches = 0, cases = 0;
    for (Case c : {Case{2, 9, 150}, Case{3, 7, 80}, Case{4, 6, 40}}) {
        for (int trial = 0; trial < c.trials; ++trial) {
            int P = std::uniform_int_distribution<int>(2, c.maxP)(rng);
            int depth = std::uniform_int_distribution<int>(1, 3)(rng);
            ProcessHierarchy h = randomHierarchy(rng, P, depth, 4);
            ProcessGroup top = buildRankMapping(h, c.k, kAnyRoot);
            ASSERT_LT(*std::max_element(top.nodes_id.begin(), top.nodes_id.end()), top.cnt);
            int best = 1 << 30;
            for (int root = 0; root < P; ++root) best = std::min(best, exhaustiveMinimumExponent(h, c.k, root));
            int got = exponentOf(top.cnt, c.k);
            EXPECT_EQ(got, best) << "k=" << c.k << " P=" << P;
            ++cases;
            if (got != best) {
                ++mismatches;
                std::printf("UNROOTED MISMATCH k=%d P=%d depth=%d greedy=%d best=%d\n", c.k, P, depth, got, best);
            }
        }
    }
    std::printf("unrooted: %d of %d cases off the optimum\n", mismatches, cases);
}

TEST(HierarchicalKnomialTree, RootedMinimumKnomialHeightMatchesExhaustiveSearch) {
    std::mt19937 rng(6);
    struct Case { int k, maxP, trials; };
    int mismatches = 0, cases = 0;
    for (Case c : {Case{2, 10, 300}, Case{3, 8, 150}, Case{4, 7, 80}}) {
        for (int trial = 0; trial < c.trials; ++trial) {
            int P = std::uniform_int_distribution<int>(2, c.maxP)(rng);
            int depth = std::uniform_int_distribution<int>(1, 3)(rng);
            int root = std::uniform_int_distribution<int>(0, P - 1)(rng);
            ProcessHierarchy h = randomHierarchy(rng, P, depth, 4);
            ProcessGroup top = buildRankMapping(h, c.k, root);
            int best = exhaustiveMinimumExponent(h, c.k, root);
            int got = exponentOf(top.cnt, c.k);
            EXPECT_GE(got, best);
            ++cases;
            if (got != best) {
                ++mismatches;
                std::printf("ROOTED MISMATCH k=%d P=%d root=%d depth=%d greedy=%d best=%d\n", c.k, P, root, depth, got, best);
            }
        }
    }
    std::printf("rooted: %d of %d cases off the optimum\n", mismatches, cases);
    // Forcing the root's groups to position 0 is not always optimal (see the counterexample
    // below); in 2 700 random cases we saw it once, so allow at most 1%.
    EXPECT_LE(mismatches * 100, cases);
}

// Found by the exhaustive search. Level 1 group {0,1,2,4,5,6} = node groups {0,5,6} {1} {2} {4},
// root 4. First fit puts the singletons at positions 1 and 2, which breaks the aligned pair
// [2,4) that group {3,7} needs one level up, so the top grows to 16 positions; placing them at
// 1 and 7 instead keeps [2,4) free and 8 positions suffice. Merge is greedy per level and
// does not plan holes for the levels above: a documented limitation of the rooted variant.
TEST(HierarchicalKnomialTree, RootedFirstFitCounterexampleNeedsOneMoreLevel) {
    ProcessHierarchy h;
    h.process_count = 8;
    h.levels = {{45, 38, 31, 17, 24, 45, 45, 10}, {1, 1, 1, 0, 1, 1, 1, 0}};
    EXPECT_EQ(exhaustiveMinimumExponent(h, 2, 4), 3);
    EXPECT_EQ(buildRankMapping(h, 2, 4).cnt, 16u);
    EXPECT_EQ(buildRankMapping(h, 2, kAnyRoot).cnt, 8u);  // unrooted greedy is optimal here
}

TEST(HierarchicalKnomialTree, SpecExampleFourteenProcessesFourGroups) {
    // Fig. 9's drawing is lost; groups of 4, 3, 3, 4 reproduce its heights with k = 2:
    // simple: 4-member group under leader depth 2 (binomial 0,1,2,3) + its own height 2 = 4;
    // merged: blocks [0,4) [4,8) [8,11) [12,15) of 16 positions, 15 empty, height 3.
    ProcessHierarchy h = fromGroupSizes({4, 3, 3, 4});
    Tree simple = buildGroupLeaderKnomialTree(h, 2, 0);
    Tree merged = buildHierarchicalKnomialTree(h, 2, 0);
    ASSERT_TRUE(simple.isValid());
    ASSERT_TRUE(merged.isValid());
    EXPECT_EQ(simple.height(), 4);
    EXPECT_EQ(merged.height(), 3);
    EXPECT_TRUE(groupPropertyHolds(h, simple));
    EXPECT_TRUE(groupPropertyHolds(h, merged));
}

TEST(HierarchicalKnomialTree, MergeGroupsPlacesLargestFirstAndGrows) {
    // k = 2, groups of 4, 4, 4, 2: hand-computed blocks [0,4) [4,8) [8,12) [12,14), cnt 16.
    std::vector<ProcessGroup> groups;
    int next = 0;
    for (int size : {4, 2, 4, 4}) {
        std::vector<int> ranks(size);
        std::iota(ranks.begin(), ranks.end(), next);
        next += size;
        groups.push_back(leafProcessGroup(ranks, 2));
    }
    ProcessGroup g = mergeGroups(groups, 2);
    EXPECT_EQ(g.cnt, 16u);
    EXPECT_EQ(g.rankAt(0), 0);   // group {0..3} (largest, lowest leader) at 0
    EXPECT_EQ(g.rankAt(4), 6);   // group {6..9}
    EXPECT_EQ(g.rankAt(8), 10);  // group {10..13}
    EXPECT_EQ(g.rankAt(12), 4);  // group {4,5}
    EXPECT_EQ(g.rankAt(13), 5);
    EXPECT_EQ(g.rankAt(14), -1);
    // With the 2-group forced to lead (it holds the root) it stays at 0 and the others move.
    ProcessGroup r = mergeGroups(groups, 2, 1);
    EXPECT_EQ(r.rankAt(0), 4);
    EXPECT_EQ(r.rankAt(1), 5);
    EXPECT_EQ(r.rankAt(4), 0);
}

TEST(HierarchicalKnomialTree, PaperSetupK32GivesExpectedPositions) {
    // 512 ranks, node = r/2, switch = r/16, k = 32: node blocks of 32, switch blocks of 1024.
    ProcessHierarchy h = hierarchyFromBlockSizes(512, {2, 16});
    ProcessGroup top = buildRankMapping(h, 32, 0);
    EXPECT_EQ(top.cnt, 32768u);
    std::vector<std::uint64_t> pos(512);
    for (size_t i = 0; i < top.ranks.size(); ++i) pos[top.ranks[i]] = top.nodes_id[i];
    for (int r = 0; r < 512; ++r) EXPECT_EQ(pos[r], (r / 16) * 1024u + ((r % 16) / 2) * 32u + r % 2) << r;
    Tree t = buildHierarchicalTree(top, 32);
    EXPECT_EQ(t.height(), 3);
    EXPECT_EQ(t.children[0].size(), 1u + 7u + 31u);  // its node peer, 7 node leaders, 31 switch leaders
}

TEST(HierarchicalKnomialTree, WidthWithinDegreeLimit) {
    ProcessHierarchy h = hierarchyFromBlockSizes(512, {2, 16});
    for (int limit : {3, 8, 12, 20, 39, 100}) {
        int k = largestWidthWithinDegree(h, 0, 32, limit);
        if (k >= 2) {
            EXPECT_LE(buildHierarchicalKnomialTree(h, k, 0).maxDegree(), limit);
        }
        for (int larger = std::max(k + 1, 2); larger <= 32; ++larger)
            EXPECT_GT(buildHierarchicalKnomialTree(h, larger, 0).maxDegree(), limit) << "limit " << limit;
    }
    EXPECT_EQ(largestWidthWithinDegree(h, 0, 32, 39), 32);  // root has 39 children at k = 32
    EXPECT_EQ(largestWidthWithinDegree(h, 0, 32, 0), 0);
}

TEST(HierarchicalKnomialTree, NoLevelsIsThePlainKnomialTree) {
    ProcessHierarchy h;
    h.process_count = 50;
    Tree t = buildHierarchicalKnomialTree(h, 3, 7);
    ASSERT_TRUE(t.isValid());
    EXPECT_EQ(t.root, 7);
    EXPECT_EQ(t.height(), 4);  // 50 < 81: at most 4 non-zero base-3 digits (e.g. 40 = 1111)
}

TEST(HierarchicalKnomialTree, RejectsLevelsThatDoNotNest) {
    ProcessHierarchy h;
    h.process_count = 4;
    h.levels = {{0, 0, 1, 1}, {0, 1, 1, 1}};
    EXPECT_THROW(buildHierarchicalKnomialTree(h, 2, 0), std::invalid_argument);
}
