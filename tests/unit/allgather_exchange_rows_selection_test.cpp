// Allgather(v)'s model for the exchange rows (their units, coll_hier/src/algorithms/allgather/):
// recursive doubling and Bruck priced round by round, a round's bytes crossing a node's link only
// where some rank's partner is on another node (closed forms from the layouts below), and
// on crowded nodes (more ranks than cores) multileader's forwards added to its rings.
// The choices this moves on the emulated cluster's measured links (2 x 4 round robin:
// Bruck / recursive doubling, 170-230 ms at 4 MiB, against multileader's 245-290 ms) and
// the ones it must leave alone (4 x 2 block: multileader, 241-246 ms against Bruck's 635-654).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "OversubscribedNodeCosts.hpp"
#include "SimFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/LinkCalibration.hpp"
#include "hieragg/hier/OversubscribedNode.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int kRanks = 8;

// An allgather(v) of `bytes` per rank (allgatherv: equal blocks in rank order), forced to
// row `name` when it is not empty.
hier::Plan plan(hieragg_coll_kind kind, const hier::Hierarchy* h, size_t bytes, const hier::CostParams& p,
                const std::string& name = {}) {
    static std::vector<int> counts, displs;
    counts.assign(kRanks, static_cast<int>(bytes / 8));
    displs.assign(kRanks, 0);
    for (int i = 1; i < kRanks; ++i) displs[i] = displs[i - 1] + counts[i - 1];
    CollCall c = baseCall(kind, 0, kRanks, h);
    c.args.scount = c.args.rcount = bytes / 8;
    if (kind == HIERAGG_ALLGATHERV) c.args.rcounts = counts.data(), c.args.rdispls = displs.data();
    c.rtype = c.stype = hieragg_dtype_info{8, 0, 8, 0, 8};
    if (!name.empty()) c.algorithm = hier::algorithmValue(*hier::algorithmByName(kind, name));
    return hier::choosePlan(c, p);
}

std::string pick(hieragg_coll_kind kind, const hier::Hierarchy* h, size_t bytes, const hier::CostParams& p) {
    const hier::Plan pl = plan(kind, h, bytes, p);
    const std::string mode = pl.mode == hier::Plan::Mode::Whole ? "whole:" : "flat:";
    return mode + (pl.stages[0].algo ? pl.stages[0].algo->name : "?");
}

// The component's parameters on an emulated layout: node oversubscription (ranks on 2
// cores), then the network as measured at setup (the published benchmark's values).
hier::CostParams emulated(double alphaUs, double betaNs, int nodeRanks, int cores) {
    hier::CostParams p = oversubscribedNodeCosts(nodeRanks, cores);
    hier::MeasuredLink m;
    m.valid = true;
    m.alpha_us = alphaUs;
    m.beta_ns_per_byte = betaNs;
    hier::applyMeasuredLink(p, hier::kLinkNetwork, m, {});
    return p;
}

}  // namespace

// Round robin over 2 nodes (even ranks on one, odd on the other): the partner at distance 1
// is on the other node for every rank (4 messages leave each node), at distance 2 and 4 on
// the same node. 4 x 2 block: at distance 1 one rank per node crosses (Bruck; recursive
// doubling's r xor 1 stays home), at 2 and 4 both ranks of each node.
TEST(AllgatherExchangeRows, PricedRoundByRoundFromThePartnersNodes) {
    const hier::CostParams p = hier::CostParams::defaults();  // unmeasured: a burst costs theta
    const hier::LinkCost& net = p.link[hier::kLinkNetwork];
    const hier::LinkCost& in = p.link[hier::kLinkNode];
    const double S = 1 << 20, bn = net.beta_us_per_byte, bi = in.beta_us_per_byte;
    const double home = in.alpha_us + in.theta_us;
    auto away = [&](int x) { return net.alpha_us + x * net.theta_us; };

    const hier::Hierarchy rr = roundRobin(kRanks, 2);
    const double rrUs = away(4) + 2 * home + std::max(4 * S * bn, S * bi) + 2 * S * bi + 4 * S * bi;
    EXPECT_NEAR(plan(HIERAGG_ALLGATHERV, &rr, S, p, "bruck").predUs, rrUs, 1e-6 * rrUs);
    EXPECT_NEAR(plan(HIERAGG_ALLGATHER, &rr, S, p, "recursive_doubling").predUs, rrUs, 1e-6 * rrUs);
    // allgather's Bruck also rotates a scratch of every block (two local copies).
    EXPECT_NEAR(plan(HIERAGG_ALLGATHER, &rr, S, p, "bruck").predUs, rrUs + 2.0 * kRanks * S * bi, 1e-6 * rrUs);

    const hier::Hierarchy blk = virtualNodes(kRanks, 2);
    const double bruckUs = away(1) + 2 * away(2) + (1 + 2 * 2 + 2 * 4) * S * bn;
    EXPECT_NEAR(plan(HIERAGG_ALLGATHERV, &blk, S, p, "bruck").predUs, bruckUs, 1e-6 * bruckUs);
    const double doublingUs = home + 2 * away(2) + S * bi + (2 * 2 + 2 * 4) * S * bn;
    EXPECT_NEAR(plan(HIERAGG_ALLGATHER, &blk, S, p, "recursive_doubling").predUs, doublingUs, 1e-6 * doublingUs);
}

// 2 x 4 round robin, 4 ranks on 2 cores: the exchange rows win where multileader's forwards
// take the cores from its rings; with a core per rank the forwards hide again.
TEST(AllgatherExchangeRows, CrowdedRoundRobinNodesTakeTheExchangeRows) {
    const hier::Hierarchy rr = roundRobin(kRanks, 2);
    const hier::CostParams crowded = emulated(103.8, 9.94, 4, 2), roomy = emulated(103.8, 9.94, 4, 4);
    for (size_t bytes : {size_t{65536}, size_t{4} << 20}) {
        EXPECT_EQ(pick(HIERAGG_ALLGATHER, &rr, bytes, crowded), "flat:recursive_doubling") << bytes;
        EXPECT_EQ(pick(HIERAGG_ALLGATHERV, &rr, bytes, crowded), "flat:bruck") << bytes;
        EXPECT_EQ(pick(HIERAGG_ALLGATHER, &rr, bytes, roomy), "whole:multileader") << bytes;
        EXPECT_EQ(pick(HIERAGG_ALLGATHERV, &rr, bytes, roomy), "whole:multileader") << bytes;
    }
    // Multileader's own price rises by at least its forwards' share of the cores.
    const hier::Plan a = plan(HIERAGG_ALLGATHER, &rr, size_t{4} << 20, crowded, "multileader");
    const hier::Plan b = plan(HIERAGG_ALLGATHER, &rr, size_t{4} << 20, roomy, "multileader");
    EXPECT_GT(a.predUs, b.predUs);
}

// Where the exchange rows cross more (4 x 2 block: Bruck sends 13 blocks out of each node
// against multileader's 6) or no node is crowded, the choices stay.
TEST(AllgatherExchangeRows, BlockNodesAndOneNodeKeepTheirRows) {
    const hier::Hierarchy blk = virtualNodes(kRanks, 2);
    const hier::CostParams p = emulated(92.1, 10.58, 2, 2);
    for (size_t bytes : {size_t{65536}, size_t{4} << 20}) {
        EXPECT_EQ(pick(HIERAGG_ALLGATHER, &blk, bytes, p), "whole:multileader") << bytes;
        EXPECT_EQ(pick(HIERAGG_ALLGATHERV, &blk, bytes, p), "whole:multileader") << bytes;
    }
    // One node (no decomposition): the flat rows' prices do not depend on the cores.
    hier::CostParams one = hier::CostParams::defaults(), oneCrowded = one;
    oneCrowded.nodeCores = 2;
    for (const char* row : {"bruck", "recursive_doubling", "ring"})
        for (size_t bytes : {size_t{8}, size_t{65536}, size_t{4} << 20})
            EXPECT_DOUBLE_EQ(plan(HIERAGG_ALLGATHER, nullptr, bytes, one, row).predUs,
                             plan(HIERAGG_ALLGATHER, nullptr, bytes, oneCrowded, row).predUs)
                << row << " " << bytes;
}
