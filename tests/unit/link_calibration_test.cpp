// Automatic calibration of the network link (LinkCalibration.hpp): the estimator
// against round trips generated from a known alpha/beta, the agreement (median, the
// same on every rank), the override rules (off, rules file, explicit MCA values), and
// the model's choice on 2 nodes x 4 ranks with the defaults vs a measured slow link.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/LinkCalibration.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;
using hier::MeasuredLink;

namespace {
// Round trip of `there` bytes one way and `back` bytes back on a link (alpha us, beta ns/B).
double rtt(double alpha, double beta, size_t there, size_t back) {
    return 2 * alpha + (static_cast<double>(there) + static_cast<double>(back)) * beta / 1000.0;
}
MeasuredLink link(double a, double b) {
    MeasuredLink m;
    m.valid = true;
    m.alpha_us = a;
    m.beta_ns_per_byte = b;
    return m;
}
}  // namespace

TEST(LinkCalibration, EstimatorRecoversAlphaBetaFromMinimums) {
    const double alpha = 84.0, beta = 8.6;  // the emulated cluster's link
    const size_t big = 128 * 1024;
    // First round trip opens the connection (slow), one is delayed by a busy peer.
    const std::vector<double> small = {rtt(alpha, beta, 8, 8) + 900, rtt(alpha, beta, 8, 8) + 15,
                                       rtt(alpha, beta, 8, 8), rtt(alpha, beta, 8, 8) + 3};
    const std::vector<double> large = {rtt(alpha, beta, big, 8) + 400, rtt(alpha, beta, big, 8)};
    const MeasuredLink m = hier::estimateLink(small, large, big, 8);
    ASSERT_TRUE(m.valid);
    // alpha absorbs the 8-byte transfer of each direction: 8 B * 8.6 ns = 0.07 us.
    EXPECT_NEAR(m.alpha_us, alpha + 8 * beta / 1000.0, 1e-9);
    EXPECT_NEAR(m.beta_ns_per_byte, beta, 1e-9);
}

TEST(LinkCalibration, EstimatorRefusesMissingOrNonsenseSamples) {
    EXPECT_FALSE(hier::estimateLink({}, {100.0}, 65536, 8).valid);
    EXPECT_FALSE(hier::estimateLink({10.0}, {}, 65536, 8).valid);
    EXPECT_FALSE(hier::estimateLink({0.0}, {100.0}, 65536, 8).valid);
    EXPECT_FALSE(hier::estimateLink({10.0}, {100.0}, 8, 8).valid);
    EXPECT_FALSE(hier::estimateLink({NAN}, {100.0}, 65536, 8).valid);
    // A large round trip faster than the small one (noise): beta is floored, not negative.
    const MeasuredLink m = hier::estimateLink({10.0}, {9.0}, 65536, 8);
    ASSERT_TRUE(m.valid);
    EXPECT_DOUBLE_EQ(m.alpha_us, 5.0);
    EXPECT_DOUBLE_EQ(m.beta_ns_per_byte, hier::kMinBetaNsPerByte);
}

TEST(LinkCalibration, AgreementIsTheMedianOfValidMeasurements) {
    EXPECT_FALSE(hier::agreeLink({}).valid);
    EXPECT_FALSE(hier::agreeLink({MeasuredLink{}, MeasuredLink{}}).valid);
    const MeasuredLink one = hier::agreeLink({MeasuredLink{}, link(80, 9), MeasuredLink{}});
    ASSERT_TRUE(one.valid);
    EXPECT_DOUBLE_EQ(one.alpha_us, 80);
    EXPECT_DOUBLE_EQ(one.beta_ns_per_byte, 9);
    // Odd count: the middle value of each parameter separately (one outlier pair ignored).
    const MeasuredLink odd = hier::agreeLink({link(500, 8), link(82, 40), link(84, 9)});
    EXPECT_DOUBLE_EQ(odd.alpha_us, 84);
    EXPECT_DOUBLE_EQ(odd.beta_ns_per_byte, 9);
    // Even count: mean of the two middle values.
    const MeasuredLink even = hier::agreeLink({link(90, 10), link(80, 8), link(100, 12), link(70, 6)});
    EXPECT_DOUBLE_EQ(even.alpha_us, 85);
    EXPECT_DOUBLE_EQ(even.beta_ns_per_byte, 9);
    // The order of the records does not matter (ranks see them in rank order anyway).
    const MeasuredLink swapped = hier::agreeLink({link(70, 6), link(100, 12), link(80, 8), link(90, 10)});
    EXPECT_DOUBLE_EQ(swapped.alpha_us, even.alpha_us);
    EXPECT_DOUBLE_EQ(swapped.beta_ns_per_byte, even.beta_ns_per_byte);
}

TEST(LinkCalibration, OverrideRules) {
    const MeasuredLink m = link(84, 8.6);
    const hier::CostParams d = hier::CostParams::defaults();
    const hier::LinkCost& dn = d.link[hier::kLinkNetwork];
    struct Case {
        const char* what;
        hier::CalibrationPolicy policy;
        bool wanted;
        double alpha, betaNs;
    } cases[] = {
        {"default: measured", {true, false, false, false}, true, 84, 8.6},
        {"autocalibrate off: defaults", {false, false, false, false}, false, dn.alpha_us, dn.beta_us_per_byte * 1000},
        {"rules file: defaults", {true, true, false, false}, false, dn.alpha_us, dn.beta_us_per_byte * 1000},
        {"explicit alpha wins, beta measured", {true, false, true, false}, true, dn.alpha_us, 8.6},
        {"explicit beta wins, alpha measured", {true, false, false, true}, true, 84, dn.beta_us_per_byte * 1000},
        {"both explicit: nothing to measure", {true, false, true, true}, false, dn.alpha_us, dn.beta_us_per_byte * 1000},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(hier::calibrationWanted(c.policy), c.wanted) << c.what;
        hier::CostParams p = d;  // stands for "whatever the MCA parameters say"
        hier::applyMeasuredLink(p, hier::kLinkNetwork, m, c.policy);
        EXPECT_DOUBLE_EQ(p.link[hier::kLinkNetwork].alpha_us, c.alpha) << c.what;
        EXPECT_NEAR(p.link[hier::kLinkNetwork].beta_us_per_byte * 1000, c.betaNs, 1e-12) << c.what;
        // Only the network class changes; theta and gamma never.
        EXPECT_DOUBLE_EQ(p.link[hier::kLinkNetwork].theta_us, dn.theta_us) << c.what;
        EXPECT_DOUBLE_EQ(p.link[hier::kLinkNetwork].gamma_us_per_byte, dn.gamma_us_per_byte) << c.what;
        for (int l : {hier::kLinkNuma, hier::kLinkNode, hier::kLinkSwitch})
            EXPECT_DOUBLE_EQ(p.link[l].alpha_us, d.link[l].alpha_us) << c.what;
    }
    // An invalid measurement changes nothing.
    hier::CostParams p = d;
    hier::applyMeasuredLink(p, hier::kLinkNetwork, MeasuredLink{}, {});
    EXPECT_DOUBLE_EQ(p.link[hier::kLinkNetwork].alpha_us, dn.alpha_us);
}

// The case of issue 7: reduce_scatter_block of 8 B per rank on 2 nodes x 4 ranks placed
// round-robin. A flat ring sends 7 messages in sequence across the network (every
// neighbour is on the other node); with the defaults' 3 us network that looks cheap.
// With the measured 84 us the model must keep at most 2 network crossings in sequence:
// its prediction has to stay above 2 * 84 us and below the ring's 7 * 84 us.
TEST(LinkCalibration, MeasuredNetworkChangesTheSmallReduceScatterChoice) {
    const int p = 8;
    const hier::Hierarchy h = roundRobin(p, 2);
    sim::SimNetwork net(p);
    CollCall c = reductionCall(HIERAGG_REDUCE_SCATTER_BLOCK, 0, p, &h, sumOp(), 1, 1 << 16);
    describeTypes(c, net.transport(0));
    hier::CostParams measured = hier::CostParams::defaults();
    hier::applyMeasuredLink(measured, hier::kLinkNetwork, link(84, 8.6), {});
    const hier::Plan before = hier::choosePlan(c, hier::CostParams::defaults());
    const hier::Plan after = hier::choosePlan(c, measured);
    EXPECT_LT(before.predUs, 7 * 84.0) << before.describe();
    EXPECT_GT(after.predUs, 84.0) << after.describe();
    EXPECT_LT(after.predUs, 7 * 84.0) << after.describe();
    const bool flatRing = after.mode == hier::Plan::Mode::Flat && after.stages[0].algo &&
                          std::string(after.stages[0].algo->name) == "ring";
    EXPECT_FALSE(flatRing) << after.describe();
}

// An offloaded round crosses the same network: a measured slower network raises the
// offload's alpha/beta by the same factor (unless set explicitly); a faster one does not
// lower them.
TEST(LinkCalibration, OffloadRoundFollowsASlowerNetwork) {
    const hier::CostParams d = hier::CostParams::defaults();
    const double netA = d.link[hier::kLinkNetwork].alpha_us, netB = d.link[hier::kLinkNetwork].beta_us_per_byte;
    hier::CostParams p = d;
    hier::applyMeasuredLink(p, hier::kLinkNetwork, link(84, 8.6), {});
    EXPECT_DOUBLE_EQ(p.offload.alpha_us, d.offload.alpha_us * (84 / netA));
    EXPECT_NEAR(p.offload.beta_us_per_byte, d.offload.beta_us_per_byte * (8.6 / 1000 / netB), 1e-15);
    hier::CalibrationPolicy keep;
    keep.offloadAlphaExplicit = keep.offloadBetaExplicit = true;
    hier::CostParams q = d;
    hier::applyMeasuredLink(q, hier::kLinkNetwork, link(84, 8.6), keep);
    EXPECT_DOUBLE_EQ(q.offload.alpha_us, d.offload.alpha_us);
    EXPECT_DOUBLE_EQ(q.offload.beta_us_per_byte, d.offload.beta_us_per_byte);
    hier::CostParams fast = d;
    hier::applyMeasuredLink(fast, hier::kLinkNetwork, link(1.0, 0.1), {});
    EXPECT_DOUBLE_EQ(fast.offload.alpha_us, d.offload.alpha_us);
    EXPECT_DOUBLE_EQ(fast.offload.beta_us_per_byte, d.offload.beta_us_per_byte);
    // Another link class leaves the offload alone.
    hier::CostParams node = d;
    hier::applyMeasuredLink(node, hier::kLinkNode, link(84, 8.6), {});
    EXPECT_DOUBLE_EQ(node.offload.alpha_us, d.offload.alpha_us);
}

// With the defaults offload=auto never opens the backend (Offload.DefaultCostsKeepAutoOnPointToPoint);
// a measured slow network must not change that by making the default (software provider)
// round look cheap next to it: with the offload's costs scaled like the network's, no
// leader stage is offloaded, for 2 and 4 leaders, at 8 B and 64 KiB, across the range of
// networks measured on the emulated cluster (alpha 70-300 us, beta 8-60 ns/B).
TEST(LinkCalibration, MeasuredNetworkKeepsAutoOffloadClosed) {
    OffloadCaps o;
    o.barrier = o.bcast = true;
    o.allreduceOps[HIERAGG_ELEM_DOUBLE] = 1u << HIERAGG_OPK_SUM;
    o.maxCount = o.maxBytes = 1u << 30;
    for (const auto& net : {link(70, 8), link(84, 8.6), link(157, 12), link(300, 60)})
        for (int nodes : {2, 4}) {
            const int p = 8;
            const hier::Hierarchy h = nodes == 2 ? roundRobin(p, 2) : virtualNodes(p, 2);
            o.members = nodes;
            hier::CostParams measured = hier::CostParams::defaults();
            hier::applyMeasuredLink(measured, hier::kLinkNetwork, net, {});
            for (hieragg_coll_kind kind : {HIERAGG_BCAST, HIERAGG_BARRIER, HIERAGG_ALLREDUCE})
                for (size_t count : {size_t{1}, size_t{8192}}) {
                    CollCall c = baseCall(kind, 0, p, &h);
                    c.args.scount = c.args.rcount = kind == HIERAGG_BARRIER ? 0 : count;
                    c.args.op_commutative = 1;
                    c.rtype = c.stype = hieragg_dtype_info{8, 0, 8, 0, 8};
                    c.offload = &o;
                    c.elemKind = HIERAGG_ELEM_DOUBLE;
                    c.opKind = HIERAGG_OPK_SUM;
                    const hier::Plan plan = hier::choosePlan(c, measured);
                    const bool offloaded = plan.mode == hier::Plan::Mode::Levels && plan.stages.back().algo &&
                                           (plan.stages.back().algo->traits & hier::kTraitFabric);
                    EXPECT_FALSE(offloaded) << hier::collectiveName(kind) << " " << count * 8 << " B, " << nodes
                                            << " nodes, alpha " << net.alpha_us << "\n" << plan.describe();
                }
        }
}
