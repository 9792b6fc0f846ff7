// The collective facts table (coll_hier CollectiveFacts.hpp) and the one isDecomposed
// predicate. The table replaced switches spread over seven files: these pin its rows to
// what those switches said, so a row edited by mistake shows here.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "SimFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {
std::set<hieragg_coll_kind> kindsWhere(bool (*pred)(hieragg_coll_kind)) {
    std::set<hieragg_coll_kind> out;
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k)
        if (pred(static_cast<hieragg_coll_kind>(k))) out.insert(static_cast<hieragg_coll_kind>(k));
    return out;
}
}  // namespace

// An intercommunicator is never decomposed, whatever hierarchy a call carries; an
// intracommunicator is where its hierarchy splits it. (the registry's own copy
// omitted the intercommunicator test: harmless only because every row whose needs read
// the decomposition also needs an intracommunicator, checked first; the next test keeps
// that so, and this one keeps the single predicate right on its own.)
TEST(CollectiveFacts, IsDecomposedOnlyOnAnIntracommunicatorThatSplits) {
    const hier::Hierarchy split = virtualNodes(8, 4), flat = virtualNodes(8, 8);
    CollCall c = baseCall(HIERAGG_BCAST, 0, 8, &split);
    EXPECT_TRUE(hier::isDecomposed(c));
    c.hierarchy = &flat;
    EXPECT_FALSE(hier::isDecomposed(c));
    c.hierarchy = nullptr;
    EXPECT_FALSE(hier::isDecomposed(c));
    c.hierarchy = &split;
    c.inter = true;
    c.remoteSize = 8;
    EXPECT_FALSE(hier::isDecomposed(c));
}

TEST(CollectiveFacts, RowsThatReadTheDecompositionNeedAnIntracommunicator) {
    const unsigned readsDecomposition = hier::kNeedsDecomposition | hier::kNeedsContiguousGroups |
                                        hier::kNeedsContiguousRanks | hier::kNeedsEqualGroups |
                                        hier::kNeedsSwitchLevels;
    for (const hier::AlgorithmInfo& a : hier::allAlgorithms())
        if (a.needs & readsDecomposition)
            EXPECT_TRUE(a.needs & hier::kNeedsIntracomm) << hier::collectiveName(a.coll) << " " << a.name;
}

TEST(CollectiveFacts, RowsSayWhatTheSwitchesSaid) {
    using K = std::set<hieragg_coll_kind>;
    EXPECT_EQ(kindsWhere(hier::modelDriven),
              (K{HIERAGG_BCAST, HIERAGG_BARRIER, HIERAGG_REDUCE, HIERAGG_ALLREDUCE, HIERAGG_REDUCE_SCATTER,
                 HIERAGG_REDUCE_SCATTER_BLOCK, HIERAGG_GATHER, HIERAGG_SCATTER, HIERAGG_ALLGATHER, HIERAGG_ALLGATHERV,
                 HIERAGG_ALLTOALL, HIERAGG_SCAN, HIERAGG_EXSCAN}));
    EXPECT_EQ(kindsWhere(recipes::dependsOnPerRankVectors),
              (K{HIERAGG_ALLGATHERV, HIERAGG_ALLTOALLV, HIERAGG_ALLTOALLW, HIERAGG_GATHERV, HIERAGG_SCATTERV,
                 HIERAGG_REDUCE_SCATTER, HIERAGG_NEIGHBOR_ALLGATHER, HIERAGG_NEIGHBOR_ALLGATHERV,
                 HIERAGG_NEIGHBOR_ALLTOALL, HIERAGG_NEIGHBOR_ALLTOALLV, HIERAGG_NEIGHBOR_ALLTOALLW}));
    EXPECT_EQ(kindsWhere(hier::isReduction),
              (K{HIERAGG_REDUCE, HIERAGG_ALLREDUCE, HIERAGG_REDUCE_SCATTER, HIERAGG_REDUCE_SCATTER_BLOCK,
                 HIERAGG_SCAN, HIERAGG_EXSCAN}));
    // Every kind but those with a datatype per peer may repeat on its raw arguments.
    EXPECT_EQ(kindsWhere([](hieragg_coll_kind k) { return !hier::rawRepeatable(k); }),
              (K{HIERAGG_ALLTOALLW, HIERAGG_NEIGHBOR_ALLTOALLW}));
    EXPECT_EQ(kindsWhere([](hieragg_coll_kind k) { return hier::factsOf(k).sizeStage != hier::SizeStage::None; }),
              (K{HIERAGG_GATHERV, HIERAGG_SCATTERV, HIERAGG_ALLTOALLV, HIERAGG_ALLTOALLW}));
    std::set<std::string> names;
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k) names.insert(hier::collectiveName(static_cast<hieragg_coll_kind>(k)));
    EXPECT_EQ(names.size(), static_cast<size_t>(HIERAGG_COLL_KIND_COUNT)) << "names are unique";
    EXPECT_STREQ(hier::collectiveName(HIERAGG_REDUCE_SCATTER_BLOCK), "reduce_scatter_block");
    EXPECT_STREQ(hier::collectiveName(HIERAGG_NEIGHBOR_ALLTOALLW), "neighbor_alltoallw");
    EXPECT_STREQ(hier::collectiveName(static_cast<hieragg_coll_kind>(HIERAGG_COLL_KIND_COUNT)), "unknown");
}

// The bytes the model sees, in closed form per kind (4 ranks, 8-byte elements, rank 1).
TEST(CollectiveFacts, ModelBytes) {
    CollCall c = baseCall(HIERAGG_BCAST, 1, 4, nullptr);
    c.stype = c.rtype = {8, 0, 8, 0, 8, 1};
    c.args.scount = 3;
    c.args.rcount = 5;
    const int counts[4] = {1, 2, 3, 6};
    c.args.rcounts = counts;
    auto bytes = [&](hieragg_coll_kind k, int root = 0) {
        c.args.kind = k;
        c.args.root = root;
        return hier::modelBytes(c);
    };
    EXPECT_EQ(bytes(HIERAGG_BCAST), 40u);
    EXPECT_EQ(bytes(HIERAGG_BARRIER), 0u);
    EXPECT_EQ(bytes(HIERAGG_GATHER), 24u);     // the block this rank gives
    EXPECT_EQ(bytes(HIERAGG_SCATTER), 40u);    // the block it takes
    EXPECT_EQ(bytes(HIERAGG_SCATTER, 1), 24u); // the root: each block it gives
    EXPECT_EQ(bytes(HIERAGG_REDUCE_SCATTER_BLOCK), 160u);
    EXPECT_EQ(bytes(HIERAGG_REDUCE_SCATTER), 96u);  // 12 elements
    EXPECT_EQ(bytes(HIERAGG_ALLGATHERV), 24u);      // mean block: 12 / 4 elements
}

// The terms the model adds to a tree plan: the shared cores where they were measured (bcast,
// reduce), the scatter after the reduce of the reduce_scatters; no other collective's.
TEST(CollectiveFacts, TreeTermsWhereTheModelHadThem) {
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k) {
        const auto kind = static_cast<hieragg_coll_kind>(k);
        const hier::TreeTerms want = kind == HIERAGG_BCAST || kind == HIERAGG_REDUCE ? hier::TreeTerms::SharedCores
                                     : kind == HIERAGG_REDUCE_SCATTER || kind == HIERAGG_REDUCE_SCATTER_BLOCK
                                         ? hier::TreeTerms::ScatterAfter
                                         : hier::TreeTerms::None;
        EXPECT_EQ(hier::factsOf(kind).treeTerms, want) << hier::collectiveName(kind);
    }
}
