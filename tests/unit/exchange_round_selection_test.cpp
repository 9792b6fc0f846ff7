// Exchange rounds (LinkCost::exchange_us): a round in which every member sends and receives
// across the network at once (dissemination, butterfly, recursive-doubling scan and
// allgather rounds, ring steps) is priced from a measurement taken at setup, not one
// start-up. Checked here: the estimate from raw round times, the agreement, what the
// measurement may replace, the closed-form costs of the exchange rows, and the choices on
// the emulated cluster's calibrated links (2 x 4 round robin: alpha 103.8 us, beta 9.94
// ns/B; 4 x 2 block: 92.1 us, 10.58 ns/B, as in burst_cost_selection_test.cpp) with a round
// of two start-ups, what the quiet-machine barrier measured (docs/performance.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
hier::MeasuredLink measured(double alphaUs, double betaNs, double exchangeUs) {
    hier::MeasuredLink m;
    m.valid = true;
    m.alpha_us = alphaUs;
    m.beta_ns_per_byte = betaNs;
    m.exchange_us = exchangeUs;
    return m;
}

// The component's parameters on one layout: defaults, the node's oversubscription (ranks
// on a 2-core machine), then the network as measured at setup (exchangeUs 0: not measured).
hier::CostParams emulated(double alphaUs, double betaNs, int nodeRanks, double exchangeUs) {
    hier::CostParams p = oversubscribedNodeCosts(nodeRanks, 2);
    hier::applyMeasuredLink(p, hier::kLinkNetwork, measured(alphaUs, betaNs, exchangeUs), {});
    return p;
}

// A call of `bytes` per rank (doubles), auto or forced to the row `forced`.
CollCall call(hieragg_coll_kind kind, const hier::Hierarchy& h, size_t bytes, const char* forced = nullptr) {
    CollCall c = baseCall(kind, 0, h.commSize(), &h);
    c.args.scount = c.args.rcount = bytes / 8;
    c.args.op_commutative = 1;
    c.rtype = c.stype = hieragg_dtype_info{8, 0, 8, 0, 8};
    c.segmentBytes = 65536;
    if (forced) c.algorithm = hier::algorithmValue(*hier::algorithmByName(kind, forced));
    return c;
}

// "whole:NAME", "flat:NAME" or "levels:INNER/LEADERS" of auto's plan.
std::string pick(hieragg_coll_kind kind, const hier::Hierarchy& h, size_t bytes, const hier::CostParams& p) {
    CollCall c = call(kind, h, bytes);
    static std::vector<int> counts, displs;  // allgatherv: IMB's equal blocks in rank order
    counts.assign(static_cast<size_t>(h.commSize()), static_cast<int>(bytes / 8));
    displs.assign(counts.size(), 0);
    for (size_t i = 1; i < displs.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
    if (kind == HIERAGG_ALLGATHERV) c.args.rcounts = counts.data(), c.args.rdispls = displs.data();
    const hier::Plan plan = hier::choosePlan(c, p);
    std::string s = plan.mode == hier::Plan::Mode::Whole  ? "whole:"
                    : plan.mode == hier::Plan::Mode::Flat ? "flat:"
                                                          : "levels:";
    for (size_t i = 0; i < plan.stages.size(); ++i)
        s += (i ? "/" : "") + std::string(plan.stages[i].algo ? plan.stages[i].algo->name : "?");
    return s;
}

// The emulated 4 x 2 block's parameters (2 ranks per node of 2 cores) with the network's
// rate both ways measured at twice beta and a rendezvous of R past 64 KiB.
hier::CostParams bothWaysWithRendezvous(double alphaUs, double betaNs, double exchangeUs, double R) {
    hier::CostParams p = oversubscribedNodeCosts(2, 2);
    hier::MeasuredLink m = measured(alphaUs, betaNs, exchangeUs);
    m.duplex_beta_ns_per_byte = 2 * betaNs;
    m.rendezvous_us = R, m.eager_bytes = 65536;
    hier::applyMeasuredLink(p, hier::kLinkNetwork, m, {});
    return p;
}

// The network link after emulated(): alpha and beta as measured, theta and gamma the defaults.
constexpr double kTheta = 0.2, kGamma = 1.0 / 4000;
}  // namespace

TEST(ExchangeRound, EstimateAveragesNeighboursAndTakesTheSmallest) {
    // Two sides skewed by d alternate L - d, L + d: every neighbour mean is L.
    EXPECT_DOUBLE_EQ(hier::estimateExchangeRound({150, 250, 150, 250, 150, 250}, 90), 200.0);
    // A slow pair (a busy machine) does not move the smallest mean: (180 + 220) / 2.
    EXPECT_DOUBLE_EQ(hier::estimateExchangeRound({180, 220, 5000, 40, 9000}, 90), 200.0);
    // Never under one one-way start-up.
    EXPECT_DOUBLE_EQ(hier::estimateExchangeRound({10, 20, 10}, 90), 90.0);
    // Unusable samples are skipped with their neighbours; fewer than two usable: not measured.
    EXPECT_DOUBLE_EQ(hier::estimateExchangeRound({NAN, 100, 300, -1, 400}, 50), 200.0);
    EXPECT_DOUBLE_EQ(hier::estimateExchangeRound({120}, 50), 0.0);
    EXPECT_DOUBLE_EQ(hier::estimateExchangeRound({}, 50), 0.0);
    EXPECT_DOUBLE_EQ(hier::estimateExchangeRound({100, INFINITY}, 50), 0.0);
}

TEST(ExchangeRound, AgreementTakesTheMedianOfThePairsThatMeasuredIt) {
    hier::MeasuredLink a = measured(90, 10, 200), b = measured(100, 11, 300), c = measured(110, 12, 0);
    const hier::MeasuredLink two = hier::agreeLink({a, b, c});
    EXPECT_DOUBLE_EQ(two.alpha_us, 100.0);
    EXPECT_DOUBLE_EQ(two.exchange_us, 250.0);  // c measured none: the mean of 200 and 300
    const hier::MeasuredLink none = hier::agreeLink({c});
    EXPECT_TRUE(none.valid);
    EXPECT_DOUBLE_EQ(none.exchange_us, 0.0);
}

TEST(ExchangeRound, MeasurementReplacesOnlyWhatTheUserLeftOpen) {
    const hier::CostParams d = hier::CostParams::defaults();
    // Not measured: alpha + theta, today's one start-up, on every link.
    for (int l = 0; l < hier::kLinkClassCount; ++l)
        EXPECT_DOUBLE_EQ(hier::exchangeRoundUs(d.link[l]), d.link[l].alpha_us + d.link[l].theta_us);
    hier::CostParams p = d;
    hier::applyMeasuredLink(p, hier::kLinkNetwork, measured(92.1, 10.58, 0), {});
    EXPECT_DOUBLE_EQ(hier::exchangeRoundUs(p.link[hier::kLinkNetwork]), 92.1 + kTheta);
    // Measured: the round as measured; other links keep alpha + theta.
    p = d;
    hier::applyMeasuredLink(p, hier::kLinkNetwork, measured(92.1, 10.58, 184.2), {});
    EXPECT_DOUBLE_EQ(hier::exchangeRoundUs(p.link[hier::kLinkNetwork]), 184.2);
    EXPECT_DOUBLE_EQ(hier::exchangeStartUs(p.link[hier::kLinkNetwork]), 184.2 - kTheta);
    EXPECT_DOUBLE_EQ(hier::exchangeRoundUs(p.link[hier::kLinkNode]), d.link[hier::kLinkNode].alpha_us + 0.1);
    // An agreed round under the agreed alpha (medians of different pairs) is raised to it.
    p = d;
    hier::applyMeasuredLink(p, hier::kLinkNetwork, measured(92.1, 10.58, 80), {});
    EXPECT_DOUBLE_EQ(hier::exchangeRoundUs(p.link[hier::kLinkNetwork]), 92.1);
    // coll_hieragg_cost_network_exchange set: it stays.
    hier::CalibrationPolicy set;
    set.exchangeExplicit = true;
    p = d;
    ASSERT_TRUE(hier::setCostParam(p, "coll_hieragg_cost_network_exchange", 500));
    hier::applyMeasuredLink(p, hier::kLinkNetwork, measured(92.1, 10.58, 184.2), set);
    EXPECT_DOUBLE_EQ(hier::exchangeRoundUs(p.link[hier::kLinkNetwork]), 500.0);
    // alpha set explicitly (50 us): the round keeps the measured ratio, 2 x 50.
    hier::CalibrationPolicy alphaSet;
    alphaSet.alphaExplicit = true;
    p = d;
    p.link[hier::kLinkNetwork].alpha_us = 50;
    hier::applyMeasuredLink(p, hier::kLinkNetwork, measured(92.1, 10.58, 184.2), alphaSet);
    EXPECT_NEAR(hier::exchangeRoundUs(p.link[hier::kLinkNetwork]), 100.0, 1e-9);
    // A params file line for another link.
    p = d;
    ASSERT_TRUE(hier::setCostParam(p, "coll_hieragg_cost_node_exchange", 7));
    EXPECT_DOUBLE_EQ(hier::exchangeRoundUs(p.link[hier::kLinkNode]), 7.0);
    EXPECT_FALSE(hier::setCostParam(p, "coll_hieragg_cost_network_exchanges", 7));
}

// Closed forms of the exchange rows' costs on 4 x 2 block with a measured round E.
TEST(ExchangeRound, ExchangeRowsCostTheirRounds) {
    const double alpha = 92.1, beta = 10.58 / 1000, E = 250.0;
    const hier::Hierarchy blk = virtualNodes(8, 2);
    const hier::CostParams p = emulated(alpha, 10.58, 2, E);
    // The leaders' dissemination: ceil(log2 4) = 2 rounds.
    {
        const hier::Plan plan = hier::choosePlan(call(HIERAGG_BARRIER, blk, 0, "dissemination"), p);
        ASSERT_EQ(plan.stages.size(), 2u) << plan.describe();
        EXPECT_STREQ(plan.stages[1].algo->name, "dissemination");
        EXPECT_NEAR(plan.stages[1].predUs, 2 * E, 1e-9) << plan.describe();
    }
    const hier::LinkCost& node = p.link[hier::kLinkNode];
    const hier::LinkCost& nw = p.link[hier::kLinkNetwork];
    const double burst = nw.burst_us >= 0 ? nw.burst_us : nw.theta_us;
    // Recursive doubling allreduce of 8 B over 8 ranks, each moving and reducing the vector:
    // the round at distance 1 pairs the ranks of a node (its bytes on the node link, its
    // start a network round all the same), the rounds at 2 and 4 send both ranks of every
    // node across (exchange rounds, the second message of the burst, 2 messages on its link).
    {
        const hier::Plan plan = hier::choosePlan(call(HIERAGG_ALLREDUCE, blk, 8, "recursive_doubling"), p);
        EXPECT_NEAR(plan.predUs,
                    E + 8 * node.beta_us_per_byte + 2 * (E + burst) + 8 * (2 * 2 * beta + 3 * kGamma), 1e-9)
            << plan.describe();
    }
    // 6 ranks (3 nodes of 2): a fold to 4 inside the nodes of ranks 0-1 and 2-3 (a message in,
    // a message out: one network start-up each, not exchanges, their bytes on the node link)
    // around 2 rounds of the core {0, 2, 4, 5}: at distance 1 ranks 0 and 2 cross (one per
    // node) while 4 and 5 stay home, at distance 2 both of node {4, 5} cross; reduced lg + 1
    // = 3 times.
    {
        const hier::Hierarchy six = virtualNodes(6, 2);
        const hier::Plan plan = hier::choosePlan(call(HIERAGG_ALLREDUCE, six, 8, "recursive_doubling"), p);
        const double fold = 2 * (alpha + kTheta) + 2 * 8 * node.beta_us_per_byte;
        const double rounds = 2 * E + burst + 8 * std::max(beta, node.beta_us_per_byte) + 8 * 2 * beta;
        EXPECT_NEAR(plan.predUs, fold + rounds + 8 * 3 * kGamma, 1e-9) << plan.describe();
    }
    // Ring allreduce of 8 B: 2 (n - 1) exchange steps of 1/n; one hop of each step leaves a
    // node (rank 2i+1 to 2i+2).
    {
        const hier::Plan plan = hier::choosePlan(call(HIERAGG_ALLREDUCE, blk, 8, "ring"), p);
        EXPECT_NEAR(plan.predUs, 14 * E + 7.0 / 8 * 8 * (2 * 1 * beta + kGamma), 1e-9) << plan.describe();
    }
}

// The ring rows across nodes with the network's rate both ways measured (duplex 2 beta) and
// a rendezvous of R past 64 KiB, on 4 x 2 block (one hop of each step leaves a node while one
// arrives): every step an exchange round (the busiest node's crossing: its theta), the
// crossing bytes at the rate both ways, each crossing message past the eager limit with R.
TEST(ExchangeRound, RingsAcrossNodesCostTheLinkBothWays) {
    const double alpha = 92.1, betaNs = 10.58, E = 250.0, R = 300.0, duplex = 2 * betaNs / 1000;
    const hier::Hierarchy blk = virtualNodes(8, 2);
    const hier::CostParams p = bothWaysWithRendezvous(alpha, betaNs, E, R);
    // Allgather ring, 64 KiB blocks: 7 steps.
    {
        const double S = 65536;
        const hier::Plan plan = hier::choosePlan(call(HIERAGG_ALLGATHER, blk, 65536, "ring"), p);
        EXPECT_NEAR(plan.predUs, 7 * (E + S * duplex + R), 1e-6) << plan.describe();
    }
    // Reduce_scatter_block ring of a 4 MiB vector (512 KiB blocks): 8 pulses of a 64 KiB
    // segment per block, 8 in flight, so one window per step of 7; 7/8 of the vector crosses
    // and is reduced.
    {
        const double V = 4 << 20;
        const hier::Plan plan = hier::choosePlan(call(HIERAGG_REDUCE_SCATTER_BLOCK, blk, 512 << 10, "ring"), p);
        EXPECT_NEAR(plan.predUs, 7 * (E + R) + 7.0 / 8 * V * (duplex + kGamma), 1e-6) << plan.describe();
    }
    // Ring allreduce of 8 B: 2 (n - 1) exchange steps, both halves of the ring both ways.
    {
        const hier::Plan plan = hier::choosePlan(call(HIERAGG_ALLREDUCE, blk, 8, "ring"), p);
        EXPECT_NEAR(plan.predUs, 14 * E + 7.0 / 8 * 8 * (2 * duplex + kGamma), 1e-9) << plan.describe();
    }
    // Not measured: beta both ways, as before.
    hier::CostParams q = emulated(alpha, betaNs, 2, E);
    EXPECT_DOUBLE_EQ(hier::duplexBetaUs(q.link[hier::kLinkNetwork]), betaNs / 1000);
}

// The butterflies across nodes on 4 x 2 block with the rate both ways measured (duplex 2
// beta) and a rendezvous of R past 64 KiB: round by round, a round whose partners are on
// another node is an exchange round E and the burst of the node's second message, its bytes
// 2 at a time each way, and a pulse's message past the eager limit pays R once per window of
// 8 pulses; a round between the two ranks of a node moves its bytes on the node link (and
// starts as a network round, docs/selection.md). Before, every round's bytes were priced as
// crossing, 2 ranks sharing the link in each, and none paid R.
TEST(ExchangeRound, ButterfliesAcrossNodesCostTheirCrossingRounds) {
    const double alpha = 92.1, betaNs = 10.58, E = 250.0, R = 300.0, duplex = 2 * betaNs / 1000;
    const hier::Hierarchy blk = virtualNodes(8, 2);
    const hier::CostParams p = bothWaysWithRendezvous(alpha, betaNs, E, R);
    const hier::LinkCost& node = p.link[hier::kLinkNode];
    const hier::LinkCost& nw = p.link[hier::kLinkNetwork];
    const double nodeE = node.exchange_us >= 0 ? node.exchange_us : node.alpha_us + node.theta_us;
    const double burst = nw.burst_us >= 0 ? nw.burst_us : nw.theta_us;
    const double V = 4 << 20;
    // Rabenseifner of 4 MiB: pulses of 8 segments (512 KiB), 8 of them, one window. Halving
    // at distance 4, 2, 1 sends 1/2, 1/4, 1/8 of the vector, the doubling as much back: the
    // rounds at 4 and 2 cross (messages of 256 and 128 KiB of a pulse: R), both at 1 stay home.
    {
        const hier::Plan plan = hier::choosePlan(call(HIERAGG_ALLREDUCE, blk, 4 << 20, "rabenseifner"), p);
        const double crossing = 4 * (E + burst + R) + 2 * (2 * V / 2 * duplex) + 2 * (2 * V / 4 * duplex);
        const double home = 2 * (E + V / 8 * node.beta_us_per_byte);
        EXPECT_NEAR(plan.predUs, crossing + home + 7.0 / 8 * V * kGamma, 1e-6) << plan.describe();
    }
    // multileader_rabenseifner of 4 MiB with 256 KiB segments: the node rings (2 ranks, the
    // whole vector in pulses of 2 segments: one window) and between the nodes the 2 columns'
    // Rabenseifner on the 2 MiB slice in pulses of a segment, one window: 4 rounds, each with
    // both columns of every node across (messages of 128 and 64 KiB of a pulse: R), their
    // start-ups one exchange round as multileader_ring's steps.
    {
        CollCall c = call(HIERAGG_ALLREDUCE, blk, 4 << 20, "multileader_rabenseifner");
        c.segmentBytes = 256 << 10;
        const hier::Plan plan = hier::choosePlan(c, p);
        const double slice = V / 2;
        const double inner = 2 * nodeE + V / 2 * (2 * node.beta_us_per_byte + node.gamma_us_per_byte);
        const double between = 4 * (E + R) + 2 * (2 * slice / 2 * duplex) + 2 * (2 * slice / 4 * duplex) +
                               3.0 / 4 * slice * kGamma;
        EXPECT_NEAR(plan.predUs, inner + between, 1e-6) << plan.describe();
    }
}

// reduce_scatter's recursive_halving (tuned's algorithm at 8 ranks below 256 KiB) across nodes,
// round by round as Rabenseifner's halving, with the rate both ways measured (duplex 2 beta):
// before, a decomposed call priced it at infinity (it ran only when forced). Blocks of 1 KiB,
// a vector V of 8 KiB (rendezvous-free: R starts at 64 KiB).
TEST(ExchangeRound, HalvingReduceScatterAcrossNodesCostsItsCrossingRounds) {
    const double alpha = 92.1, betaNs = 10.58, E = 250.0, R = 300.0, duplex = 2 * betaNs / 1000;
    const hier::CostParams p = bothWaysWithRendezvous(alpha, betaNs, E, R);
    const hier::LinkCost& node = p.link[hier::kLinkNode];
    const hier::LinkCost& nw = p.link[hier::kLinkNetwork];
    const double burst = nw.burst_us >= 0 ? nw.burst_us : nw.theta_us;
    const auto forced = [&](const hier::Hierarchy& h, size_t block) {
        return hier::choosePlan(call(HIERAGG_REDUCE_SCATTER_BLOCK, h, block, "recursive_halving"), p);
    };
    // 4 x 2 block: distance 4 (V/2) and 2 (V/4) send both ranks of every node across (an
    // exchange round, the burst's second message, 2 messages each way on the link), distance 1
    // (V/8) pairs the two ranks of a node: its bytes on the node link, a network round's start.
    {
        const double V = 8 * 1024;
        const hier::Plan plan = forced(virtualNodes(8, 2), 1024);
        const double crossing = 2 * (E + burst) + 2 * (V / 2 + V / 4) * duplex;
        const double home = E + V / 8 * node.beta_us_per_byte;
        EXPECT_NEAR(plan.predUs, crossing + home + 7.0 / 8 * V * kGamma, 1e-9) << plan.describe();
    }
    // 2 x 4 round robin (even ranks on one node): distance 4 and 2 stay home, distance 1
    // (V/8) sends all 4 ranks of a node across: the round and 3 further messages, 4 at once.
    {
        const double V = 8 * 1024;
        const hier::Plan plan = forced(roundRobin(8, 2), 1024);
        const double home = 2 * E + (V / 2 + V / 4) * node.beta_us_per_byte;
        const double crossing = E + 3 * burst + 4 * V / 8 * duplex;
        EXPECT_NEAR(plan.predUs, home + crossing + 7.0 / 8 * V * kGamma, 1e-9) << plan.describe();
    }
    // 6 ranks, 3 nodes of 2: ranks 1 and 3 fold into 0 and 2 inside their nodes (the whole
    // vector in, one block of V/6 back: two one-way messages, bytes on the node link); the core
    // {0, 2, 4, 5}: at distance 1 (V/4) ranks 0 and 2 cross (one per node), 4 and 5 stay
    // home; at distance 2 (V/2) both of node {4, 5} cross. Reduced: 3/4 of V, all of it on
    // the folded pairs.
    {
        const double V = 6 * 1024;
        const hier::Plan plan = forced(virtualNodes(6, 2), 1024);
        const double fold = 2 * (alpha + kTheta) + (V + V / 6) * node.beta_us_per_byte;
        const double rounds = E + std::max(V / 4 * duplex, V / 4 * node.beta_us_per_byte) + E + burst +
                              2 * V / 2 * duplex;
        EXPECT_NEAR(plan.predUs, fold + rounds + (3.0 / 4 + 1) * V * kGamma, 1e-9) << plan.describe();
    }
    // Past the latency-bound vectors (bytes' time above the start-ups) it is not offered:
    // 64 KiB blocks on 4 x 2 block, 2 (V/2 + V/4) duplex = 1.5 V duplex > 3 E + 2 burst.
    EXPECT_TRUE(std::isinf(forced(virtualNodes(8, 2), 65536).predUs));
}

// Scan's recursive doubling as a lone call on 2 x 4 round robin, 64 KiB: step d = 1 sends
// every message to the other node (4 leave each node at once: the exchange round, 3 further
// messages of the burst, 4 S beta on the link), steps 2 and 4 stay inside the nodes (node
// exchange rounds).
TEST(ExchangeRound, ScanRecursiveDoublingLoneCall) {
    const double alpha = 103.8, beta = 9.94 / 1000, E = 2 * alpha, S = 65536;
    const hier::Hierarchy rr = roundRobin(8, 2);
    const hier::CostParams p = emulated(alpha, 9.94, 4, E);
    const hier::Plan plan = hier::choosePlan(call(HIERAGG_SCAN, rr, 65536, "recursive_doubling"), p);
    const hier::LinkCost& node = p.link[hier::kLinkNode];
    const hier::LinkCost& nw = p.link[hier::kLinkNetwork];
    const double burst = nw.burst_us >= 0 ? nw.burst_us : nw.theta_us;
    const double nodeE = node.exchange_us >= 0 ? node.exchange_us : node.alpha_us + node.theta_us;
    const double lone = (E + 3 * burst + 4 * S * beta + S * nw.gamma_us_per_byte) +
                        2 * (nodeE + S * (node.beta_us_per_byte + node.gamma_us_per_byte));
    EXPECT_NEAR(plan.predUs, lone, 1e-6) << plan.describe();
    // The rank chain (every hop crosses on round robin) stays dearer: 7 network hops.
    EXPECT_EQ(pick(HIERAGG_SCAN, rr, 65536, p), "flat:recursive_doubling");
}

// The choices on both layouts with a measured round of 1.1 and of two start-ups against the
// same links unmeasured (today's model): the 4 x 2 barrier leaves the leaders' dissemination (2 rounds
// of 2 start-ups) for the k-nomial fan-in and release (measured 365 us against 483-504 us,
// 2026-11-23 03:55); with a round of two start-ups the 4 x 2 scan and exscan at 8 B also
// leave the leaders' exscan (2 exchange rounds) for the rank chain (3 one-way crossings);
// every other cell keeps its row.
TEST(ExchangeRound, OnlyTheFourNodeBarrierAndScansChangeOnTheEmulatedLinks) {
    const hier::Hierarchy rr = roundRobin(8, 2), blk = virtualNodes(8, 2);
    struct Layout {
        const hier::Hierarchy* h;
        double alpha, beta;
        int nodeRanks;
    } layouts[] = {{&rr, 103.8, 9.94, 4}, {&blk, 92.1, 10.58, 2}};
    const hieragg_coll_kind kinds[] = {HIERAGG_BARRIER,        HIERAGG_BCAST,    HIERAGG_REDUCE,  HIERAGG_ALLREDUCE,
                                       HIERAGG_ALLGATHER,      HIERAGG_ALLGATHERV, HIERAGG_ALLTOALL, HIERAGG_GATHER,
                                       HIERAGG_SCATTER,        HIERAGG_REDUCE_SCATTER, HIERAGG_REDUCE_SCATTER_BLOCK,
                                       HIERAGG_SCAN,           HIERAGG_EXSCAN};
    // 1.1: what the setup read on the emulated links in a calm spell (docs/performance.md).
    for (double factor : {1.1, 2.0}) {
        int changed = 0;
        for (const Layout& l : layouts) {
            const hier::CostParams before = emulated(l.alpha, l.beta, l.nodeRanks, 0);
            const hier::CostParams after = emulated(l.alpha, l.beta, l.nodeRanks, factor * l.alpha);
            for (hieragg_coll_kind k : kinds)
                for (size_t bytes : {size_t{8}, size_t{65536}, size_t{4} << 20}) {
                    if (k == HIERAGG_BARRIER && bytes > 8) continue;
                    const std::string was = pick(k, *l.h, bytes, before), is = pick(k, *l.h, bytes, after);
                    if (k == HIERAGG_BARRIER && l.h == &blk) {
                        EXPECT_EQ(was, "levels:knomial/dissemination");
                        EXPECT_EQ(is, "levels:knomial/knomial");
                    } else if ((k == HIERAGG_SCAN || k == HIERAGG_EXSCAN) && l.h == &blk && bytes == 8 &&
                               factor >= 2) {
                        // The leaders' exscan is 2 exchange rounds, the rank chain 3 one-way
                        // crossings: 2 x 2 alpha > 3 alpha (ScanLeaderChain.ModelPrices...).
                        EXPECT_EQ(was, "whole:leader_prefix");
                        EXPECT_EQ(is, "flat:linear");
                    } else {
                        EXPECT_EQ(was, is) << hier::collectiveName(k) << " " << bytes << " B, " << l.nodeRanks
                                           << " ranks per node, E = " << factor << " alpha";
                    }
                    changed += was != is;
                }
        }
        EXPECT_EQ(changed, factor >= 2 ? 3 : 1) << factor;
    }
    // 2 x 4: the two leaders' one round (207.6 us) against the k-nomial's two crossings: the
    // dissemination stays.
    EXPECT_EQ(pick(HIERAGG_BARRIER, rr, 8, emulated(103.8, 9.94, 4, 2 * 103.8)), "levels:knomial/dissemination");
}
