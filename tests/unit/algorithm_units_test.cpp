// The algorithm units (coll_hier/src/algorithms/) and the generic chooser (Selection.cpp):
// every row brings a cost function that fits its Pricing, and the model's choice is the
// minimum of what the rows' own cost functions predict (each one's prediction seen by
// forcing it), with ties to the flat rows, then to the earlier row of the list.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "SimFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

std::string label(const hier::AlgorithmInfo& a) { return std::string(hier::collectiveName(a.coll)) + " " + a.name; }

}  // namespace

TEST(AlgorithmUnits, EveryRowHasTheCostItsPricingNeeds) {
    for (const hier::AlgorithmInfo& a : hier::allAlgorithms()) {
        EXPECT_EQ(a.cost == nullptr, a.pricing == hier::Pricing::FlatMarker) << label(a);
        switch (a.pricing) {
        case hier::Pricing::Stage:
            EXPECT_EQ(a.serves & hier::kServesWhole, 0u) << label(a);
            EXPECT_NE(a.serves & hier::kServesAnyLevel, 0u) << label(a);
            break;
        case hier::Pricing::WholeTree:
        case hier::Pricing::ForcedOnly:
            EXPECT_EQ(a.serves, static_cast<unsigned>(hier::kServesWhole)) << label(a);
            EXPECT_TRUE(a.needs & hier::kNeedsDecomposition) << label(a);
            break;
        case hier::Pricing::FlatMarker:
            EXPECT_EQ(a.serves, static_cast<unsigned>(hier::kServesFlat)) << label(a);
            break;
        case hier::Pricing::Alone:
            EXPECT_TRUE(a.serves == hier::kServesFlat || a.serves == hier::kServesWhole) << label(a);
            break;
        }
    }
}

TEST(AlgorithmUnits, NamesAreUniqueWithinACollective) {
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k) {
        std::set<std::string> names;
        for (const hier::AlgorithmInfo* a : hier::algorithmsOf(static_cast<hieragg_coll_kind>(k)))
            EXPECT_TRUE(names.insert(a->name).second) << label(*a);
    }
}

// Allgather, allgatherv and alltoall are all Alone rows: auto must run the row whose own
// prediction (forced) is the least, on every layout and size below.
TEST(AlgorithmUnits, AutoRunsTheRowWithTheLeastPrediction) {
    const hier::Hierarchy twoNodes = virtualNodes(8, 4), fourNodes = virtualNodes(8, 2), oneNode = virtualNodes(8, 8);
    const hier::CostParams p = hier::CostParams::defaults();
    std::vector<int> counts, displs;
    int checked = 0;
    std::set<std::string> winners;  // the grid must make the rows compete
    for (const hieragg_coll_kind kind : {HIERAGG_ALLGATHER, HIERAGG_ALLGATHERV, HIERAGG_ALLTOALL})
        for (const hier::Hierarchy* h : {&oneNode, &twoNodes, &fourNodes})
            for (const size_t count : {size_t{1}, size_t{128}, size_t{8192}, size_t{1} << 19}) {
                counts.assign(8, static_cast<int>(count));
                displs.assign(8, 0);
                for (int i = 1; i < 8; ++i) displs[i] = displs[i - 1] + counts[i - 1];
                CollCall c = baseCall(kind, 0, 8, h);
                c.args.scount = c.args.rcount = count;
                if (kind == HIERAGG_ALLGATHERV) c.args.rcounts = counts.data(), c.args.rdispls = displs.data();
                c.rtype = c.stype = hieragg_dtype_info{8, 0, 8, 0, 8};
                const hier::Plan chosen = hier::choosePlan(c, p);
                // The least forced prediction, flat rows first, list order within each.
                const hier::AlgorithmInfo* least = nullptr;
                double leastUs = 0;
                for (const bool flat : {true, false})
                    for (const hier::AlgorithmInfo* a : hier::algorithmsOf(kind)) {
                        if (((a->serves & hier::kServesFlat) != 0) != flat || !hier::unmetNeed(*a, c).empty()) continue;
                        CollCall forced = c;
                        forced.algorithm = hier::algorithmValue(*a);
                        const hier::Plan f = hier::choosePlan(forced, p);
                        ASSERT_EQ(f.stages.size(), 1u) << label(*a);
                        ASSERT_EQ(f.stages[0].algo, a) << label(*a);
                        if (!least || f.predUs < leastUs) least = a, leastUs = f.predUs;
                    }
                ASSERT_NE(least, nullptr);
                ASSERT_EQ(chosen.stages.size(), 1u);
                EXPECT_EQ(chosen.stages[0].algo, least)
                    << hier::collectiveName(kind) << " " << count << " x 8 B, groups of "
                    << h->groupMembers(0, 0).size() << ": auto ran " << chosen.stages[0].algo->name << ", least is "
                    << least->name;
                EXPECT_DOUBLE_EQ(chosen.predUs, leastUs);
                winners.insert(label(*least));
                ++checked;
            }
    EXPECT_EQ(checked, 3 * 3 * 4);
    EXPECT_GE(winners.size(), 5u);
}
