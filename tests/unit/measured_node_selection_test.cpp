// The node link measured at setup (LinkCalibration.hpp: the per-message gap becomes the
// node's theta) on one node of 8 ranks and 2 cores: with the MCA defaults the 0.1 us theta
// makes a root's 7 sends look cheaper than 3 rounds, so 8-byte allreduce and barrier take a
// flat k-nomial tree (k = 8); with a measured per-message cost of 0.3 us they take log2(8)
// rounds (recursive doubling, dissemination), as tuned does. Predictions are checked
// against the closed forms of the measured parameters.
#include <gtest/gtest.h>

#include <string>

#include "OversubscribedNodeCosts.hpp"
#include "SimFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/LinkCalibration.hpp"
#include "hieragg/hier/OversubscribedNode.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

// The costs the setup gives 8 ranks on a node of 2 cores, then (measured) the node link's
// calibration: alpha 0.35 us, beta 0.1 ns/B, 0.3 us per further message of a stream.
hier::CostParams node8of2(bool measured) {
    hier::CostParams p = oversubscribedNodeCosts(8, 2);
    if (measured) {
        hier::MeasuredLink m;
        m.valid = true;
        m.alpha_us = 0.35;
        m.beta_ns_per_byte = 0.1;
        m.burst_us = 0.3;
        hier::applyMeasuredLink(p, hier::kLinkNode, m, {});
    }
    return p;
}

// Rank 0's call of `kind` over 8 B of int64 (a commutative op) on one node of 8 ranks (no decomposition).
hier::Plan plan8(hieragg_coll_kind kind, bool measured) {
    CollCall c = baseCall(kind, 0, 8, nullptr);
    c.args.rcount = c.args.scount = 1;
    c.args.op_commutative = 1;
    c.rtype = c.stype = {8, 0, 8, 0, 8};
    c.segmentBytes = 65536;
    return hier::choosePlan(c, node8of2(measured));
}

TEST(MeasuredNode, PerMessageCostTurnsFlatTreesIntoLogRounds) {
    for (hieragg_coll_kind kind : {HIERAGG_ALLREDUCE, HIERAGG_BARRIER}) {
        const hier::Plan before = plan8(kind, false), after = plan8(kind, true);
        ASSERT_TRUE(before.stages.at(0).algo && after.stages.at(0).algo);
        SCOPED_TRACE(before.describe() + " / " + after.describe());
        // Defaults: one flat tree, every other rank a child of rank 0.
        EXPECT_EQ(before.stages[0].algo->name, std::string("knomial"));
        const MemberTree t = before.stages[0].shape.build(8, 0);
        EXPECT_EQ(t.children[t.root].size(), 7u);
        EXPECT_EQ(after.stages[0].algo->name,
                  std::string(kind == HIERAGG_BARRIER ? "dissemination" : "recursive_doubling"));
    }
    // Dissemination: log2(8) rounds, each an exchange round of the node link, which
    // unmeasured is alpha + theta = 0.35 + 0.3 us.
    EXPECT_NEAR(plan8(HIERAGG_BARRIER, true).predUs, 3 * (0.35 + 0.3), 1e-9);
}

}  // namespace
