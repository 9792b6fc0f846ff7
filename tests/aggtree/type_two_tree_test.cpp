#include "hieragg/aggtree/FabricGenerators.hpp"
#include "hieragg/aggtree/TypeTwoTree.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

using namespace hieragg::aggtree;

namespace {

// Reference for rootCandidates: BFS from every switch, keep those with the smallest
// largest hop count to the NICs.
std::vector<int> bruteForceCandidates(const Fabric& f, const std::vector<int>& nics, int& radius) {
    radius = -1;
    std::vector<int> out;
    for (int s : f.switches()) {
        auto hops = f.hopsFrom(s);
        int worst = 0;
        for (int nic : nics) worst = hops[nic] < 0 ? 1 << 29 : std::max(worst, hops[nic]);
        if (worst >= (1 << 29)) continue;
        if (radius < 0 || worst < radius) {
            radius = worst;
            out.clear();
        }
        if (worst == radius) out.push_back(s);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// A fabric that is itself a random tree of `switches` switches (switch 0 the root, parent
// of switch i drawn from 0..i-1) with `nicCount` NICs on random switches.
Fabric randomTreeFabric(std::mt19937& rng, int switches, int nicCount) {
    Fabric f;
    for (int i = 0; i < switches; ++i) {
        int s = f.addSwitch("s" + std::to_string(i));
        if (i > 0) f.connect(s, std::uniform_int_distribution<int>(0, i - 1)(rng));
    }
    for (int i = 0; i < nicCount; ++i) {
        int nic = f.addNic("n" + std::to_string(i), i);
        f.connect(nic, std::uniform_int_distribution<int>(0, switches - 1)(rng));
    }
    return f;
}

// Is every vertex of `items` adoptable by a kept strict ancestor, respecting capacities?
// Plain augmenting-path bipartite matching over capacity slots (independent of the DP).
bool feasibleByMatching(const TypeTwoTree& p, const std::vector<int>& items, const std::vector<char>& kept,
                        const std::vector<int>& cap) {
    std::vector<int> slotOwner;  // tree vertex owning each slot
    for (int v = 0; v < p.tree.size(); ++v)
        if (kept[v])
            for (int k = 0; k < cap[v]; ++k) slotOwner.push_back(v);
    std::vector<int> matchOfSlot(slotOwner.size(), -1);
    auto isAncestor = [&](int a, int v) {
        for (int u = p.tree.parent[v]; u != Tree::kNone; u = p.tree.parent[u])
            if (u == a) return true;
        return false;
    };
    std::function<bool(int, std::vector<char>&)> augment = [&](int item, std::vector<char>& seen) {
        for (size_t s = 0; s < slotOwner.size(); ++s) {
            if (seen[s] || !isAncestor(slotOwner[s], item)) continue;
            seen[s] = 1;
            if (matchOfSlot[s] < 0 || augment(matchOfSlot[s], seen)) {
                matchOfSlot[s] = item;
                return true;
            }
        }
        return false;
    };
    for (int item : items) {
        std::vector<char> seen(slotOwner.size(), 0);
        if (!augment(item, seen)) return false;
    }
    return true;
}

// Exhaustive minimum: every keepable switch subset containing the root. -1 if none works.
int exhaustiveMinimum(const Fabric& f, const TypeTwoTree& p, const std::vector<int>& K, const std::vector<char>& keepable) {
    std::vector<int> sw, nics, cap(p.tree.size(), 0);
    for (int v = 0; v < p.tree.size(); ++v) {
        int fv = p.fabricVertex[v];
        if (f.isSwitch(fv)) {
            cap[v] = K[fv];
            if (v != p.tree.root) sw.push_back(v);
        } else {
            nics.push_back(v);
        }
    }
    if (!keepable.empty() && !keepable[p.fabricVertex[p.tree.root]]) return -1;
    int best = -1;
    for (unsigned mask = 0; mask < (1u << sw.size()); ++mask) {
        int count = 1 + __builtin_popcount(mask);
        if (best >= 0 && count >= best) continue;
        std::vector<char> kept(p.tree.size(), 0);
        kept[p.tree.root] = 1;
        std::vector<int> items = nics;
        bool ok = true;
        for (size_t i = 0; i < sw.size(); ++i)
            if (mask >> i & 1u) {
                if (!keepable.empty() && !keepable[p.fabricVertex[sw[i]]]) ok = false;
                kept[sw[i]] = 1;
                items.push_back(sw[i]);
            }
        if (ok && feasibleByMatching(p, items, kept, cap)) best = count;
    }
    return best;
}

// Checks the definition of a tree derived from `p`: contains every NIC, every parent is a
// physical ancestor, switch degrees within K, links to parent = the physical path.
void expectDerivedTree(const Fabric& f, const TypeTwoTree& p, const TypeTwoTree& a, const std::vector<int>& K) {
    ASSERT_TRUE(a.tree.isValid());
    ASSERT_EQ(a.fabricVertex[a.tree.root], p.fabricVertex[p.tree.root]);
    std::vector<int> physOf(f.vertexCount(), -1);
    for (int v = 0; v < p.tree.size(); ++v) physOf[p.fabricVertex[v]] = v;
    int nicsP = 0, nicsA = 0;
    for (int fv : p.fabricVertex) nicsP += f.isNic(fv);
    auto pdepth = p.tree.depths();
    for (int v = 0; v < a.tree.size(); ++v) {
        int fv = a.fabricVertex[v];
        ASSERT_GE(physOf[fv], 0);
        if (f.isNic(fv)) {
            ++nicsA;
            EXPECT_TRUE(a.tree.children[v].empty());
        } else {
            EXPECT_LE(static_cast<int>(a.tree.children[v].size()), K[fv]);
        }
        if (v == a.tree.root) continue;
        int parentPhys = physOf[a.fabricVertex[a.tree.parent[v]]];
        int u = physOf[fv];
        int steps = 0;
        while (u != Tree::kNone && u != parentPhys) {
            u = p.tree.parent[u];
            ++steps;
        }
        ASSERT_EQ(u, parentPhys) << "parent is not a physical ancestor";
        EXPECT_EQ(static_cast<int>(a.linksToParent[v].size()), pdepth[physOf[fv]] - pdepth[parentPhys]);
        EXPECT_EQ(steps, pdepth[physOf[fv]] - pdepth[parentPhys]);
    }
    EXPECT_EQ(nicsA, nicsP);
}

}  // namespace

TEST(TypeTwoRoots, CandidatesOnTheSupernodeFabric) {
    SupernodeFabricSpec spec;
    spec.supernodes = 2;
    Fabric f = supernodeFabric(spec);
    const auto& nic = f.nics();
    int radius = 0;
    auto oneLeaf = rootCandidates(f, {nic[0], nic[5], nic[15]}, &radius);
    EXPECT_EQ(radius, 1);
    ASSERT_EQ(oneLeaf.size(), 1u);
    EXPECT_EQ(f.name(oneLeaf[0]), "sn0.leaf0");
    auto twoLeaves = rootCandidates(f, {nic[0], nic[16]}, &radius);
    EXPECT_EQ(radius, 2);
    EXPECT_EQ(twoLeaves.size(), 16u);
    auto twoSupernodes = rootCandidates(f, {nic[0], nic[600]}, &radius);
    EXPECT_EQ(radius, 3);
    EXPECT_EQ(twoSupernodes.size(), 16u * 8);
    for (int s : twoSupernodes) EXPECT_EQ(f.level(s), 2);
    EXPECT_THROW(rootCandidates(f, {}), std::invalid_argument);
}

TEST(TypeTwoRoots, CandidatesMatchBruteForceOnRandomGraphs) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 60; ++trial) {
        Fabric f;
        int S = 2 + trial % 9;
        for (int i = 0; i < S; ++i) f.addSwitch("s" + std::to_string(i));
        std::uniform_int_distribution<int> pick(0, S - 1);
        for (int e = 0; e < S + trial % 5; ++e) {
            int a = pick(rng), b = pick(rng);
            if (a != b && f.linkBetween(a, b) < 0) f.connect(a, b);
        }
        std::vector<int> nics;
        for (int i = 0; i < 3 + trial % 70; ++i) {
            int nic = f.addNic("n" + std::to_string(i), i);
            f.connect(nic, pick(rng));
            if (trial % 3 == 0) f.connect(nic, pick(rng));  // dual-homed NICs
            if (i % 2 == 0 || trial % 4 == 0) nics.push_back(nic);
        }
        int expectRadius = 0, gotRadius = 0;
        auto expect = bruteForceCandidates(f, nics, expectRadius);
        auto got = rootCandidates(f, nics, &gotRadius);
        EXPECT_EQ(got, expect) << "trial " << trial;
        EXPECT_EQ(gotRadius, expect.empty() ? -1 : expectRadius);
    }
}

TEST(TypeTwoPhysicalTree, IsAShortestPathTreeOverExactlyTheNics) {
    SupernodeFabricSpec spec;
    spec.supernodes = 3;
    Fabric f = supernodeFabric(spec);
    std::vector<int> nics;
    for (int i = 0; i < 3 * 512; i += 97) nics.push_back(f.nics()[i]);
    int root = rootCandidates(f, nics)[0];
    TypeTwoTree t = physicalTree(f, root, nics);
    ASSERT_TRUE(t.tree.isValid());
    EXPECT_EQ(t.fabricVertex[t.tree.root], root);
    auto hops = f.hopsFrom(root);
    auto depth = t.tree.depths();
    int nicsSeen = 0;
    for (int v = 0; v < t.tree.size(); ++v) {
        int fv = t.fabricVertex[v];
        EXPECT_EQ(depth[v], hops[fv]);
        if (f.isNic(fv)) {
            ++nicsSeen;
            EXPECT_TRUE(t.tree.children[v].empty());
        } else {
            EXPECT_FALSE(t.tree.children[v].empty()) << "switch without NICs below is kept";
        }
        if (v != t.tree.root) {
            ASSERT_EQ(t.linksToParent[v].size(), 1u);
            const auto& l = f.link(t.linksToParent[v][0]);
            int pf = t.fabricVertex[t.tree.parent[v]];
            EXPECT_TRUE((l.a == fv && l.b == pf) || (l.b == fv && l.a == pf));
        }
    }
    EXPECT_EQ(nicsSeen, static_cast<int>(nics.size()));
    EXPECT_EQ(t.radiusLinks(), 3);
    EXPECT_THROW(physicalTree(f, f.nics()[0], nics), std::invalid_argument);
    EXPECT_THROW(physicalTree(f, root, {nics[0], nics[0]}), std::invalid_argument);
}

TEST(TypeTwoMinimumCost, PaperExampleSixteenNicsThirteenSwitchesKFive) {
    // Root with 3 children, each with 3 leaf switches (13 switches); 16 NICs on the 9 leaves.
    Fabric f;
    int root = f.addSwitch("root", 2);
    std::vector<int> leaves;
    for (int a = 0; a < 3; ++a) {
        int mid = f.addSwitch("mid" + std::to_string(a), 1);
        f.connect(mid, root);
        for (int b = 0; b < 3; ++b) {
            int leaf = f.addSwitch("leaf" + std::to_string(a) + std::to_string(b), 0);
            f.connect(leaf, mid);
            leaves.push_back(leaf);
        }
    }
    std::vector<int> nics;
    int perLeaf[9] = {2, 2, 2, 2, 2, 2, 2, 1, 1};
    for (int l = 0; l < 9; ++l)
        for (int i = 0; i < perLeaf[l]; ++i) {
            int nic = f.addNic("n" + std::to_string(nics.size()), static_cast<int>(nics.size()));
            f.connect(nic, leaves[l]);
            nics.push_back(nic);
        }
    auto K = uniformDegreeLimit(f, 5);
    TypeTwoTree p = physicalTree(f, root, nics);
    EXPECT_EQ(p.switchCount(f), 13);
    auto r = minimumCostTree(f, p, K);
    ASSERT_TRUE(r.feasible);
    EXPECT_EQ(r.tree.switchCount(f), 4);
    EXPECT_EQ(exhaustiveMinimum(f, p, K, {}), 4);
    expectDerivedTree(f, p, r.tree, K);
}

TEST(TypeTwoMinimumCost, EqualsExhaustiveSearchOnRandomPhysicalTrees) {
    std::mt19937 rng(2024);
    int feasibleCases = 0, infeasibleCases = 0;
    for (int trial = 0; trial < 400; ++trial) {
        int S = 1 + trial % 12;
        int nicCount = 1 + static_cast<int>(rng() % 24);
        Fabric f = randomTreeFabric(rng, S, nicCount);
        std::vector<int> K(f.vertexCount(), 0);
        for (int s : f.switches()) K[s] = 1 + static_cast<int>(rng() % (trial % 3 == 0 ? 3 : 6));
        std::vector<char> keepable;
        if (trial % 4 == 1) {
            keepable.assign(f.vertexCount(), 1);
            for (int s : f.switches()) keepable[s] = rng() % 4 != 0;
            keepable[0] = 1;
        }
        std::vector<int> nics = f.nics();
        TypeTwoTree p = physicalTree(f, 0, nics);
        int expect = exhaustiveMinimum(f, p, K, keepable);
        auto r = minimumCostTree(f, p, K, keepable);
        ASSERT_EQ(r.feasible, expect >= 0) << "trial " << trial;
        if (!r.feasible) {
            ++infeasibleCases;
            continue;
        }
        ++feasibleCases;
        ASSERT_EQ(r.tree.switchCount(f), expect) << "trial " << trial;
        expectDerivedTree(f, p, r.tree, K);
        if (!keepable.empty()) {
            for (int s : r.tree.switchVertices(f)) EXPECT_TRUE(keepable[s]);
        }
    }
    // The generator must exercise both outcomes.
    EXPECT_GT(feasibleCases, 50);
    EXPECT_GT(infeasibleCases, 10);
}

TEST(TypeTwoMinimumCost, LargeDegreeKeepsOnlyTheRoot) {
    Fabric f = kAryNTree(4, 3);  // 64 NICs
    std::vector<int> nics = f.nics();
    auto roots = rootCandidates(f, nics);
    TypeTwoTree p = physicalTree(f, roots[0], nics);
    EXPECT_EQ(p.switchCount(f), 1 + 4 + 16);
    auto r = minimumCostTree(f, p, uniformDegreeLimit(f, 64));
    ASSERT_TRUE(r.feasible);
    EXPECT_EQ(r.tree.switchCount(f), 1);
    EXPECT_EQ(r.tree.radiusLinks(), 3);
    // K = 16: 64 NICs + s - 1 adoptions need 16·s >= 63 + s, i.e. s >= 5; 4 leaf-level
    // subtrees of 16 NICs make 5 reachable (root + 4 level-1 switches).
    auto r16 = minimumCostTree(f, p, uniformDegreeLimit(f, 16));
    ASSERT_TRUE(r16.feasible);
    EXPECT_EQ(r16.tree.switchCount(f), 5);
}

TEST(TypeTwoAllocation, PhysicalTreesExhaustLeafEntriesMinimumCostTreesUseSpines) {
    Fabric f = supernodeFabric({});
    std::vector<int> nics{f.nics()[0], f.nics()[1], f.nics()[16], f.nics()[17]};  // two leaves
    auto K = uniformDegreeLimit(f, 64);

    FabricLoad phys = FabricLoad::withEntries(f, 1);
    auto first = allocateTypeTwoTree(f, nics, TypeTwoMethod::Physical, K, phys);
    ASSERT_EQ(first.status, TypeTwoStatus::Allocated);
    EXPECT_EQ(first.tree.switchCount(f), 3);  // spine + 2 leaves
    EXPECT_EQ(f.level(first.root), 1);
    auto before = phys.freeEntries;
    auto second = allocateTypeTwoTree(f, nics, TypeTwoMethod::Physical, K, phys);
    EXPECT_EQ(second.status, TypeTwoStatus::FallbackTypeOne);
    EXPECT_EQ(second.rootsTried, 0);  // both leaves are exhausted: no root can work
    EXPECT_NE(second.reason.find("fallback to type I"), std::string::npos);
    EXPECT_EQ(phys.freeEntries, before);  // a failed attempt takes nothing

    FabricLoad minc = FabricLoad::withEntries(f, 1);
    std::vector<int> roots;
    for (int i = 0; i < 16; ++i) {
        auto a = allocateTypeTwoTree(f, nics, TypeTwoMethod::MinimumCost, K, minc);
        ASSERT_EQ(a.status, TypeTwoStatus::Allocated) << i;
        EXPECT_EQ(a.tree.switchCount(f), 1);
        roots.push_back(a.root);
    }
    std::sort(roots.begin(), roots.end());
    EXPECT_EQ(std::unique(roots.begin(), roots.end()), roots.end());  // load order spreads roots
    EXPECT_EQ(allocateTypeTwoTree(f, nics, TypeTwoMethod::MinimumCost, K, minc).status,
              TypeTwoStatus::FallbackTypeOne);
}

TEST(TypeTwoAllocation, RootsOrderedByFreeEntriesThenLinkLoad) {
    Fabric f = twoLevelFatTree(2, 2, 3);
    FabricLoad load = FabricLoad::withEntries(f, 4);
    int s0 = f.findByName("spine0"), s1 = f.findByName("spine1"), s2 = f.findByName("spine2");
    load.freeEntries[s0] = 2;
    load.linkLoad[f.linkBetween(f.findByName("leaf0"), s2)] = 5;
    EXPECT_EQ(orderRootsByLoad(f, {s0, s1, s2}, load), (std::vector<int>{s1, s2, s0}));
}

TEST(TypeTwoAllocation, NextRootIsTriedUntilNoneIsLeft) {
    Fabric f = supernodeFabric({});
    std::vector<int> nics{f.nics()[0], f.nics()[16]};
    auto K = uniformDegreeLimit(f, 64);
    for (TypeTwoMethod method : {TypeTwoMethod::Physical, TypeTwoMethod::MinimumCost}) {
        FabricLoad load = FabricLoad::withEntries(f, 100);
        for (int s : f.switches())
            if (f.level(s) == 1) load.freeEntries[s] = 1;
        for (int i = 0; i < 16; ++i)
            ASSERT_EQ(allocateTypeTwoTree(f, nics, method, K, load).status, TypeTwoStatus::Allocated);
        auto last = allocateTypeTwoTree(f, nics, method, K, load);
        EXPECT_EQ(last.status, TypeTwoStatus::FallbackTypeOne) << typeTwoMethodName(method);
        EXPECT_EQ(last.rootsTried, 16);
    }
}

// ---- Reproduce: figures 19 and 20 ---------------------------------------------------------

#include "hieragg/aggtree/Reproduce.hpp"

TEST(ReproducePatterns, GridLinesCoverEveryRankOncePerDimension) {
    auto p = gridPattern("g", {4, 3, 5});
    EXPECT_EQ(p.processes, 60);
    ASSERT_EQ(p.communicators.size(), 15u + 20u + 12u);
    std::vector<int> seen(60, 0);
    for (const auto& c : p.communicators)
        for (int r : c) ++seen[r];
    for (int s : seen) EXPECT_EQ(s, 3);
    EXPECT_EQ(p.communicators[0], (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(p.communicators[15], (std::vector<int>{0, 4, 8}));
    EXPECT_EQ(p.communicators[35], (std::vector<int>{0, 12, 24, 36, 48}));
    auto rnd = randomPattern("r", 10, 4, 3);
    ASSERT_EQ(rnd.communicators.size(), 3u);
    EXPECT_EQ(rnd.communicators[2].size(), 2u);
    auto paper = paperPatterns();
    ASSERT_EQ(paper.size(), 5u);
    EXPECT_EQ(paper[0].communicators.size(), 160u + 256u);
    EXPECT_EQ(paper[1].communicators.size(), 404u);
    for (const auto& pat : paper) EXPECT_LE(pat.processes, 80 * 512);
}

TEST(ReproduceFig1920, HandCountedTwoSupernodeGrid) {
    // 64x16 grid on 2 supernodes. Rows: 64 ranks on 4 leaves of one supernode -> spine + 4
    // leaves. Columns: 16 ranks, 8 per supernode on 8 distinct leaves -> top + 2 spines + 16
    // leaves. Each leaf is in 1 row and 16 columns, so with 16 entries the 16th column of
    // each group of 16 sharing leaves fails: 4 failures. Minimum-cost trees keep the root only.
    Fig1920Options o;
    o.supernodes = 2;
    auto rows = reproduceFig19And20({gridPattern("64x16", {64, 16})}, o);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].communicators, 80);
    EXPECT_EQ(rows[0].physicalEntries, 16 * 5 + 64 * 19);
    EXPECT_EQ(rows[0].minimumCostEntries, 80);
    EXPECT_EQ(rows[0].physicalFailures, 4);
    EXPECT_EQ(rows[0].minimumCostFailures, 0);
    EXPECT_DOUBLE_EQ(rows[0].physicalFailurePercent, 5.0);
    EXPECT_NEAR(rows[0].entryReductionPercent, 100.0 * (1.0 - 80.0 / 1296.0), 1e-9);
    o.supernodes = 1;
    EXPECT_THROW(reproduceFig19And20({gridPattern("64x16", {64, 16})}, o), std::invalid_argument);
}
