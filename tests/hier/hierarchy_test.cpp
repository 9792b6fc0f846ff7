#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>

#include "hieragg/hier/Hierarchy.hpp"
#include "hier_reference.hpp"

using hieragg::hier::Hierarchy;
using hieragg::hier::Space;
namespace ref = hieragg::hier::testref;

TEST(Hierarchy, FlatIsSingletonsUnderOneLeaderSpace) {
    Hierarchy h = Hierarchy::flat(5);
    EXPECT_EQ(h.commSize(), 5);
    ASSERT_EQ(h.levels(), 1);
    EXPECT_EQ(h.groupCount(0), 5);
    EXPECT_TRUE(h.isTrivial());
    for (int r = 0; r < 5; ++r) {
        EXPECT_EQ(h.groupMembers(0, h.groupOf(0, r)), std::vector<int>{r});
        Space s0 = h.space(0, r, 2);
        EXPECT_EQ(s0.members, std::vector<int>{r});
        EXPECT_EQ(s0.leader, r);
        Space top = h.space(1, r, 2);
        EXPECT_EQ(top.members, (std::vector<int>{0, 1, 2, 3, 4}));
        EXPECT_EQ(top.leader, 2);
        EXPECT_EQ(top.level, 1);
    }
}

TEST(Hierarchy, DenseIdsInOrderOfLowestRank) {
    // Keys deliberately unordered and sparse.
    Hierarchy h = Hierarchy::fromKeys(6, {{900, -5, 900, 7, -5, 7}});
    EXPECT_EQ(h.groupCount(0), 3);
    EXPECT_EQ(h.groupOf(0, 0), 0);
    EXPECT_EQ(h.groupOf(0, 1), 1);
    EXPECT_EQ(h.groupOf(0, 3), 2);
    EXPECT_EQ(h.groupMembers(0, 0), (std::vector<int>{0, 2}));
    EXPECT_EQ(h.groupMembers(0, 1), (std::vector<int>{1, 4}));
    EXPECT_EQ(h.groupMembers(0, 2), (std::vector<int>{3, 5}));
}

TEST(Hierarchy, InnerLevelIsRefinedByOuterLevels) {
    // Inner key alone would group {0,1,2,3}; outer splits {0,1} from {2,3}.
    Hierarchy h = Hierarchy::fromKeys(4, {{1, 1, 1, 1}, {0, 0, 5, 5}});
    EXPECT_EQ(h.groupCount(0), 2);
    EXPECT_EQ(h.groupMembers(0, 1), (std::vector<int>{2, 3}));
    // Round-robin inside blocks: 8 ranks, inner r%2, outer r/4.
    Hierarchy rr = Hierarchy::fromKeys(8, {{0, 1, 0, 1, 0, 1, 0, 1}, {0, 0, 0, 0, 1, 1, 1, 1}});
    ASSERT_EQ(rr.groupCount(0), 4);
    EXPECT_EQ(rr.groupMembers(0, 0), (std::vector<int>{0, 2}));
    EXPECT_EQ(rr.groupMembers(0, 1), (std::vector<int>{1, 3}));
    EXPECT_EQ(rr.groupMembers(0, 2), (std::vector<int>{4, 6}));
    EXPECT_EQ(rr.groupMembers(0, 3), (std::vector<int>{5, 7}));
}

TEST(Hierarchy, RootActsAsLeaderOfEveryGroupItIsIn) {
    // Two nodes of four; root 6 is not the lowest rank of its node.
    Hierarchy h = Hierarchy::fromKeys(8, {{0, 0, 0, 0, 1, 1, 1, 1}});
    EXPECT_EQ(h.leaderOf(0, 5, 6), 6);
    EXPECT_EQ(h.leaderOf(0, 1, 6), 0);
    EXPECT_EQ(h.leaderOf(0, 5, -1), 4);
    EXPECT_EQ(h.leaderOf(1, 3, 6), 6);
    EXPECT_EQ(h.leaderOf(1, 3, -1), 0);
    Space leaders = h.space(1, 6, 6);
    EXPECT_EQ(leaders.members, (std::vector<int>{0, 6}));
    EXPECT_EQ(leaders.leader, 6);
    EXPECT_TRUE(h.space(1, 4, 6).members.empty());  // 4 is not its node's leader for root 6
    EXPECT_EQ(h.space(1, 4, 6).leader, -1);
    EXPECT_EQ(h.space(1, 4, -1).members, (std::vector<int>{0, 4}));
}

TEST(Hierarchy, RootReorderingKeepsMembersAscending) {
    // Groups {0,5}, {1,2}, {3,4}: root 5 replaces 0 and must move to the end.
    Hierarchy h = Hierarchy::fromKeys(6, {{0, 1, 1, 2, 2, 0}});
    EXPECT_EQ(h.space(1, 5, 5).members, (std::vector<int>{1, 3, 5}));
    EXPECT_EQ(h.space(1, 1, 5).members, (std::vector<int>{1, 3, 5}));
}

TEST(Hierarchy, SpaceHelpers) {
    Space s;
    s.members = {1, 4, 9};
    EXPECT_TRUE(s.contains(4));
    EXPECT_FALSE(s.contains(5));
    EXPECT_EQ(s.indexOf(9), 2);
    EXPECT_EQ(s.indexOf(0), -1);
    EXPECT_EQ(s.indexOf(10), -1);
}

TEST(Hierarchy, IsTrivial) {
    EXPECT_TRUE(Hierarchy::fromKeys(4, {{7, 7, 7, 7}}).isTrivial());
    EXPECT_TRUE(Hierarchy::fromKeys(4, {{0, 1, 2, 3}, {7, 7, 7, 7}}).isTrivial());
    EXPECT_FALSE(Hierarchy::fromKeys(4, {{0, 0, 1, 1}}).isTrivial());
    EXPECT_FALSE(Hierarchy::fromKeys(4, {{0, 1, 2, 3}, {0, 0, 1, 1}}).isTrivial());
    EXPECT_TRUE(Hierarchy::fromKeys(1, {{0}}).isTrivial());
}

TEST(Hierarchy, RejectsMismatchedKeys) {
    EXPECT_THROW(Hierarchy::fromKeys(3, {{0, 0}}), std::invalid_argument);
    EXPECT_THROW(Hierarchy::fromKeys(3, {{0, 0, 0}, {1}}), std::invalid_argument);
    EXPECT_THROW(Hierarchy::fromKeys(2, {{0, 0}}).space(2, 0, -1), std::out_of_range);
    EXPECT_THROW(Hierarchy::fromKeys(2, {{0, 0}}).space(0, 2, -1), std::out_of_range);
}

TEST(Hierarchy, NoLevelsMeansFlat) {
    Hierarchy h = Hierarchy::fromKeys(3, {});
    ASSERT_EQ(h.levels(), 1);
    EXPECT_EQ(h.groupCount(0), 3);
}

// Everything the Hierarchy says, checked against the brute-force reference.
static void checkAgainstReference(const Hierarchy& h, const ref::Keys& keys, const std::string& what) {
    const int n = h.commSize();
    const int L = static_cast<int>(keys.size());
    ASSERT_EQ(h.levels(), L) << what;
    for (int l = 0; l < L; ++l) {
        const auto expected = ref::denseGroups(keys, l);
        ASSERT_EQ(h.groupCount(l), static_cast<int>(expected.size())) << what << " level " << l;
        for (int g = 0; g < h.groupCount(l); ++g)
            ASSERT_EQ(h.groupMembers(l, g), expected[g]) << what << " level " << l << " group " << g;
        for (int r = 0; r < n; ++r)
            ASSERT_EQ(h.groupMembers(l, h.groupOf(l, r)), ref::groupOf(keys, l, r)) << what;
    }
    for (int root = -1; root < n; ++root) {
        for (int l = 0; l <= L; ++l) {
            for (int r = 0; r < n; ++r) {
                ASSERT_EQ(h.leaderOf(l, r, root), ref::leaderOf(keys, l, r, root))
                    << what << " leaderOf level " << l << " rank " << r << " root " << root;
                const Space got = h.space(l, r, root);
                const ref::RefSpace want = ref::space(keys, l, r, root);
                ASSERT_EQ(got.level, l);
                ASSERT_EQ(got.members, want.members)
                    << what << " space level " << l << " rank " << r << " root " << root;
                ASSERT_EQ(got.leader, want.leader)
                    << what << " space leader level " << l << " rank " << r << " root " << root;
            }
        }
    }
}

TEST(Hierarchy, RandomCasesMatchBruteForce) {
    std::mt19937 rng(12345);
    for (int iter = 0; iter < 400; ++iter) {
        const int n = std::uniform_int_distribution<int>(1, 24)(rng);
        const int L = std::uniform_int_distribution<int>(1, 4)(rng);
        ref::Keys keys(L, std::vector<int64_t>(n));
        for (int l = 0; l < L; ++l) {
            // Few distinct values at some levels, many at others; negative and huge keys too.
            const int distinct = std::uniform_int_distribution<int>(1, n + 1)(rng);
            const int64_t scale = (iter % 3 == 0) ? (int64_t{1} << 40) : (iter % 3 == 1 ? -7 : 1);
            for (int r = 0; r < n; ++r)
                keys[l][r] = scale * std::uniform_int_distribution<int>(0, distinct - 1)(rng);
        }
        checkAgainstReference(Hierarchy::fromKeys(n, keys), keys, "case " + std::to_string(iter));
        if (HasFatalFailure()) return;
    }
}

TEST(Hierarchy, StructuredCasesMatchBruteForce) {
    // Blocks within blocks, round robin inside blocks, blocks inside round robin, singletons.
    for (int n : {1, 2, 7, 12, 17}) {
        ref::Keys nested(2, std::vector<int64_t>(n)), rrInBlock(2, std::vector<int64_t>(n)),
            blockInRr(2, std::vector<int64_t>(n)), singles(1, std::vector<int64_t>(n));
        for (int r = 0; r < n; ++r) {
            nested[0][r] = r / 2;
            nested[1][r] = r / 4;
            rrInBlock[0][r] = r % 2;
            rrInBlock[1][r] = r / 5;
            blockInRr[0][r] = r / 3;
            blockInRr[1][r] = r % 3;
            singles[0][r] = r;
        }
        for (const auto& keys : {nested, rrInBlock, blockInRr, singles}) {
            checkAgainstReference(Hierarchy::fromKeys(n, keys), keys, "n=" + std::to_string(n));
            if (HasFatalFailure()) return;
        }
    }
}

TEST(Hierarchy, MembersOfASpaceAgreeOnIt) {
    // Every member of a space must compute the same space: otherwise the recipes deadlock.
    std::mt19937 rng(777);
    for (int iter = 0; iter < 100; ++iter) {
        const int n = std::uniform_int_distribution<int>(1, 30)(rng);
        const int L = std::uniform_int_distribution<int>(1, 3)(rng);
        ref::Keys keys(L, std::vector<int64_t>(n));
        for (auto& level : keys)
            for (auto& k : level) k = std::uniform_int_distribution<int>(0, 3)(rng);
        Hierarchy h = Hierarchy::fromKeys(n, keys);
        for (int root = -1; root < n; ++root)
            for (int l = 0; l <= L; ++l)
                for (int r = 0; r < n; ++r) {
                    const Space s = h.space(l, r, root);
                    if (s.members.empty()) continue;
                    ASSERT_TRUE(s.contains(r));
                    ASSERT_TRUE(s.contains(s.leader));
                    if (root >= 0 && l == L) {
                        ASSERT_EQ(s.leader, root);
                    }
                    for (int m : s.members) {
                        const Space other = h.space(l, m, root);
                        ASSERT_EQ(other.members, s.members);
                        ASSERT_EQ(other.leader, s.leader);
                    }
                }
    }
}

TEST(Hierarchy, DescribeSummarisesLevels) {
    Hierarchy h = Hierarchy::fromKeys(10, {{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}, {0, 0, 0, 0, 1, 1, 1, 1, 2, 2}});
    const std::string d = h.describe({"numa", "node"});
    EXPECT_NE(d.find("10 ranks"), std::string::npos) << d;
    EXPECT_NE(d.find("numa: 5 groups of size 2"), std::string::npos) << d;
    EXPECT_NE(d.find("node: 3 groups of size 2 (x1), 4 (x2)"), std::string::npos) << d;
    EXPECT_NE(d.find("leader space: 3 leaders (unrooted): 0 4 8"), std::string::npos) << d;
    EXPECT_NE(Hierarchy::flat(3).describe({}).find("level 0"), std::string::npos);
}

TEST(Hierarchy, ScalesTo100kRanks) {
    const int n = 100000;
    ref::Keys keys(3, std::vector<int64_t>(n));
    for (int r = 0; r < n; ++r) {
        keys[0][r] = r % 4;    // "numa" round robin
        keys[1][r] = r / 64;   // node
        keys[2][r] = r / 2048; // switch
    }
    const auto start = std::chrono::steady_clock::now();
    Hierarchy h = Hierarchy::fromKeys(n, keys);
    const std::string d = h.describe({"numa", "node", "switch"});
    long long members = 0;
    for (int r = 0; r < n; r += 97)
        for (int l = 0; l <= 3; ++l) members += static_cast<long long>(h.space(l, r, 12345).members.size());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(h.groupCount(0), 4 * ((n + 63) / 64));  // last node holds 32 ranks, still 4 domains
    EXPECT_EQ(h.groupCount(2), (n + 2047) / 2048);
    EXPECT_GT(members, 0);
    EXPECT_LT(d.size(), 2000u);
    EXPECT_LT(seconds, 5.0);  // quadratic code would take minutes
}
