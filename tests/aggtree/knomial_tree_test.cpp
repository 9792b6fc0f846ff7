// k-nomial and k-ary trees against closed forms and a digit-string reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "hieragg/aggtree/KaryTree.hpp"
#include "hieragg/aggtree/KnomialTree.hpp"

using namespace hieragg::aggtree;

namespace {
std::vector<int> digitsOf(long long v, int k) {  // least significant first
    std::vector<int> d;
    for (; v > 0; v /= k) d.push_back(static_cast<int>(v % k));
    return d;
}
long long valueOf(const std::vector<int>& d, int k) {
    long long v = 0;
    for (size_t i = d.size(); i-- > 0;) v = v * k + d[i];
    return v;
}
// Reference parent: clear the lowest non-zero digit of the digit string.
long long referenceParent(long long v, int k) {
    auto d = digitsOf(v, k);
    for (auto& x : d)
        if (x != 0) {
            x = 0;
            break;
        }
    return valueOf(d, k);
}
long long binomial(int n, int r) {
    long long c = 1;
    for (int i = 0; i < r; ++i) c = c * (n - i) / (i + 1);
    return c;
}
int virtualRank(int r, int root, int P) { return (r - root + P) % P; }
}  // namespace

TEST(KnomialTree, ParentClearsLowestNonZeroDigit) {
    for (int k : {2, 3, 5, 32})
        for (long long v = 1; v < 3000; ++v)
            ASSERT_EQ(static_cast<long long>(knomialParentPosition(v, k)), referenceParent(v, k)) << v << " k=" << k;
}

TEST(KnomialTree, ChildrenAreExactlyTheVerticesWhoseParentIsV) {
    for (int k : {2, 3, 4, 7})
        for (int P : {1, 2, 7, 27, 50, 64, 100}) {
            std::vector<std::vector<std::uint64_t>> expected(P);
            for (int v = 1; v < P; ++v) expected[referenceParent(v, k)].push_back(v);
            for (int v = 0; v < P; ++v)
                EXPECT_EQ(knomialChildPositions(v, k, P), expected[v]) << "v=" << v << " k=" << k << " P=" << P;
        }
}

TEST(KnomialTree, FullTreeLevelSizesAreBinomialTimesPowersOfKMinus1) {
    // P = k^n: level i holds C(n, i)·(k−1)^i vertices; height n; root has (k−1)·n children.
    for (auto [k, n] : {std::pair{2, 6}, {3, 4}, {4, 3}, {32, 2}}) {
        int P = static_cast<int>(std::lround(std::pow(k, n)));
        Tree t = buildKnomialTree(P, k, 0);
        ASSERT_TRUE(t.isValid());
        EXPECT_EQ(t.height(), n);
        EXPECT_EQ(static_cast<int>(t.children[0].size()), (k - 1) * n);
        std::vector<long long> perLevel(n + 1, 0);
        for (int d : t.depths()) ++perLevel[d];
        for (int i = 0; i <= n; ++i)
            EXPECT_EQ(perLevel[i], binomial(n, i) * static_cast<long long>(std::pow(k - 1, i))) << "k=" << k;
        // A vertex with i trailing zero digits has i·(k−1) children.
        for (int v = 1; v < P; ++v) {
            int zeros = 0;
            for (int x = v; x % k == 0; x /= k) ++zeros;
            EXPECT_EQ(static_cast<int>(t.children[v].size()), zeros * (k - 1)) << v;
        }
    }
}

TEST(KnomialTree, RootedAnywhereRelabelsVirtualRanks) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        int P = std::uniform_int_distribution<int>(1, 300)(rng);
        int k = std::uniform_int_distribution<int>(2, 40)(rng);
        int root = std::uniform_int_distribution<int>(0, P - 1)(rng);
        Tree t = buildKnomialTree(P, k, root);
        ASSERT_EQ(t.size(), P);
        ASSERT_TRUE(t.isValid());
        EXPECT_EQ(t.root, root);
        for (int r = 0; r < P; ++r) {
            if (r == root) continue;
            EXPECT_EQ(virtualRank(t.parent[r], root, P), referenceParent(virtualRank(r, root, P), k));
        }
        // Height = most non-zero digits among virtual ranks < P.
        int h = 0;
        for (int v = 0; v < P; ++v) {
            int nz = 0;
            for (int d : digitsOf(v, k)) nz += d != 0;
            h = std::max(h, nz);
        }
        EXPECT_EQ(t.height(), h);
    }
}

TEST(KaryTree, ParentAndChildrenFollowBfsNumbering) {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 200; ++trial) {
        int P = std::uniform_int_distribution<int>(1, 500)(rng);
        int k = std::uniform_int_distribution<int>(1, 40)(rng);
        int root = std::uniform_int_distribution<int>(0, P - 1)(rng);
        Tree t = buildKaryTree(P, k, root);
        ASSERT_TRUE(t.isValid());
        EXPECT_EQ(t.root, root);
        for (int r = 0; r < P; ++r) {
            int v = virtualRank(r, root, P);
            if (v > 0) {
                EXPECT_EQ(virtualRank(t.parent[r], root, P), (v - 1) / k);
            }
            // Children are v·k+1 .. v·k+k, cut at P.
            long long expected = std::max(0LL, std::min<long long>(k, static_cast<long long>(P) - 1 - 1LL * v * k));
            EXPECT_EQ(static_cast<long long>(t.children[r].size()), expected);
        }
        // Complete tree height: smallest h with 1 + k + ... + k^h >= P.
        int h = 0;
        for (long long reach = 1, level = 1; reach < P; ++h) {
            level *= k;
            reach += level;
        }
        EXPECT_EQ(t.height(), h) << "P=" << P << " k=" << k;
    }
}

TEST(TypeOneTrees, RejectBadArguments) {
    EXPECT_THROW(buildKnomialTree(4, 1, 0), std::invalid_argument);
    EXPECT_THROW(buildKnomialTree(4, 2, 4), std::invalid_argument);
    EXPECT_THROW(buildKaryTree(0, 2, 0), std::invalid_argument);
}
