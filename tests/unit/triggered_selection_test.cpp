// Triggered chain bcast among the leaders (docs/offload.md) without libfabric: which calls
// the need `triggered` admits, that a provider with triggered operations but no
// collectives (sockets) gets the triggered row for bcast and point-to-point for the rest,
// the cost term (SPEC 3.5's chain with the provider's per-message costs), and the schedule:
// one fabric step per leader, in the user's buffer when it is contiguous.
#include <gtest/gtest.h>

#include <cmath>

#include "SimFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

// What the sockets provider gives after setup: triggered operations, no collectives.
OffloadCaps socketsCaps(int members, bool preferred) {
    OffloadCaps o;
    o.triggered = true;
    o.maxCount = o.maxBytes = SIZE_MAX;
    o.members = members;
    o.preferred = preferred;
    return o;
}

CollCall bcastCall(int rank, int size, const hier::Hierarchy* h, const OffloadCaps* o, size_t bytes) {
    CollCall c = baseCall(HIERAGG_BCAST, rank, size, h);
    c.args.scount = c.args.rcount = bytes;
    c.rtype = c.stype = hieragg_dtype_info{1, 0, 1, 0, 1};
    c.offload = o;
    c.segmentBytes = 64 * 1024;
    return c;
}

std::string leaderAlgo(const CollCall& c, const hier::CostParams& p = hier::CostParams::defaults()) {
    const hier::Plan plan = hier::choosePlan(c, p);
    return plan.mode == hier::Plan::Mode::Levels && plan.stages.back().algo ? plan.stages.back().algo->name : "";
}

}  // namespace

TEST(Triggered, NeedAdmitsNonEmptyBcastsOnATriggeredGroup) {
    const hier::Hierarchy h = virtualNodes(8, 2);
    const OffloadCaps trig = socketsCaps(4, true);
    EXPECT_TRUE(hier::triggeredServes(bcastCall(0, 8, &h, &trig, 10)));
    EXPECT_FALSE(hier::triggeredServes(bcastCall(0, 8, &h, &trig, 0))) << "empty";
    EXPECT_FALSE(hier::triggeredServes(bcastCall(0, 8, &h, nullptr, 10))) << "no backend";
    OffloadCaps collectivesOnly = trig;
    collectivesOnly.triggered = false;
    collectivesOnly.bcast = true;
    EXPECT_FALSE(hier::triggeredServes(bcastCall(0, 8, &h, &collectivesOnly, 10))) << "tcp;ofi_rxm-like provider";
    const hier::Hierarchy flat = hier::Hierarchy::flat(8);
    EXPECT_FALSE(hier::triggeredServes(bcastCall(0, 8, &flat, &trig, 10))) << "no decomposition";
    CollCall ar = bcastCall(0, 8, &h, &trig, 10);
    ar.args.kind = HIERAGG_ALLREDUCE;
    EXPECT_FALSE(hier::triggeredServes(ar));
    // The fabric-collective rows' need fails on such a group: they fall back.
    EXPECT_FALSE(hier::offloadServes(bcastCall(0, 8, &h, &trig, 10)));
}

TEST(Triggered, SocketsGroupGetsTriggeredBcastAndPointToPointElsewhere) {
    const hier::Hierarchy h = virtualNodes(8, 2);
    const OffloadCaps asked = socketsCaps(4, true), autoMode = socketsCaps(4, false);
    for (size_t bytes : {size_t{8}, size_t{65536}, size_t{4} << 20}) {
        EXPECT_EQ(leaderAlgo(bcastCall(0, 8, &h, &asked, bytes)), "ofi_triggered_chain") << bytes;
        // Defaults price a provider message at 25 us against 3 us over the network.
        EXPECT_NE(leaderAlgo(bcastCall(0, 8, &h, &autoMode, bytes)), "ofi_triggered_chain") << bytes;
    }
    for (auto kind : {HIERAGG_BARRIER, HIERAGG_ALLREDUCE}) {
        CollCall c = bcastCall(0, 8, &h, &asked, kind == HIERAGG_BARRIER ? 0 : 100);
        c.args.kind = kind;
        c.args.op_commutative = 1;
        c.elemKind = HIERAGG_ELEM_DOUBLE;
        c.opKind = HIERAGG_OPK_SUM;
        c.rtype = c.stype = hieragg_dtype_info{8, 0, 8, 0, 8};
        // Level by level or one tree over the whole hierarchy: no offloaded stage either way.
        const std::string plan = hier::choosePlan(c, hier::CostParams::defaults()).describe();
        EXPECT_EQ(plan.find("ofi"), std::string::npos) << hieragg_coll_name(kind) << ":\n" << plan;
    }
    // A provider message as cheap as a network one and half its per-byte cost: auto takes
    // the triggered chain for a large message.
    hier::CostParams cheap = hier::CostParams::defaults();
    cheap.offload.alpha_us = cheap.link[hier::kLinkNetwork].alpha_us;
    cheap.offload.beta_us_per_byte = cheap.link[hier::kLinkNetwork].beta_us_per_byte / 2;
    EXPECT_EQ(leaderAlgo(bcastCall(0, 8, &h, &autoMode, size_t{4} << 20), cheap), "ofi_triggered_chain");
}

TEST(Triggered, CostIsSpec35ChainWithTheProvidersMessageCost) {
    const hier::Hierarchy h = virtualNodes(8, 2);  // 4 leaders
    const OffloadCaps o = socketsCaps(4, true);
    const hier::CostParams p = hier::CostParams::defaults();
    for (size_t bytes : {size_t{8}, size_t{65536}, size_t{4} << 20}) {
        const hier::Plan plan = hier::choosePlan(bcastCall(0, 8, &h, &o, bytes), p);
        const hier::StageChoice& s = plan.stages.back();
        ASSERT_TRUE(s.algo);
        const double c = static_cast<double>(s.segmentBytes);
        EXPECT_GE(c, std::min<double>(static_cast<double>(bytes), kTriggeredMinSegment)) << bytes;
        EXPECT_LE(c, static_cast<double>(bytes)) << bytes;
        EXPECT_LE(std::ceil(bytes / c), static_cast<double>(kTriggeredMaxSegments)) << bytes;
        const double want = (std::ceil(bytes / c) + 4 - 2) * (p.offload.alpha_us + c * p.offload.beta_us_per_byte);
        EXPECT_NEAR(s.predUs, want, 1e-6 * want) << bytes;
        EXPECT_NE(plan.describe().find("ofi-triggered-chain"), std::string::npos) << plan.describe();
    }
}

TEST(Triggered, OneFabricStepPerLeaderInTheUsersBufferWhenContiguous) {
    // 8 ranks in blocks of 3: leaders 0, 3, 6; the root 4 hands the message to leader 3.
    const int n = 8;
    const hier::Hierarchy h = virtualNodes(n, 3);
    const OffloadCaps o = socketsCaps(3, true);
    for (int r = 0; r < n; ++r) {
        CollCall c = bcastCall(r, n, &h, &o, 100000);
        c.args.root = 4;
        const Schedule s = recipes::buildSchedule(c);
        EXPECT_EQ(s.countKind(StepKind::Collective), r % 3 == 0 ? 1u : 0u) << "rank " << r;
        if (r == 4) EXPECT_GE(s.countKind(StepKind::Send), 1u);
        if (r % 3 != 0) continue;
        EXPECT_NE(s.algorithm.find("leaders:ofi-triggered-chain"), std::string::npos) << s.algorithm;
        for (const Step& st : s.steps)
            if (st.kind == StepKind::Collective) {
                EXPECT_EQ(st.fabric, static_cast<uint8_t>(FabricKind::TriggeredChainBcast));
                EXPECT_EQ(st.dst.slot, static_cast<uint32_t>(kRecvBuf)) << "relays forward from the user's buffer";
                EXPECT_EQ(st.srcType.count, 100000u);
                EXPECT_EQ(st.peer, 1) << "leader 3 (member 1) roots the chain";
                EXPECT_GE(st.dstType.count, kTriggeredMinSegment) << "segment";
            }
    }
    // A strided type (1 byte every 2): the leaders run the chain on a packed temporary.
    for (int r : {0, 3}) {
        CollCall c = bcastCall(r, n, &h, &o, 1000);
        c.rtype = c.stype = hieragg_dtype_info{1, 0, 2, 0, 1};
        const Schedule s = recipes::buildSchedule(c);
        for (const Step& st : s.steps)
            if (st.kind == StepKind::Collective) EXPECT_GE(st.dst.slot, static_cast<uint32_t>(kFirstTemp));
    }
}
