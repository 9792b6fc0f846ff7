// Offloaded leader stages without libfabric (docs/offload.md): which calls the need
// `offload` admits, what the selection makes of the `ofi` rows in `ofi` and `auto` modes,
// and the shape of the schedules: only leaders hold fabric steps, every leader the same
// number (they start them in the same order), cut to the provider's message size.
#include <gtest/gtest.h>

#include "SimFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

OffloadCaps caps(int members, bool preferred, size_t maxBytes = 1 << 20) {
    OffloadCaps o;
    o.barrier = o.bcast = true;
    o.allreduceOps[HIERAGG_ELEM_DOUBLE] = (1u << HIERAGG_OPK_SUM) | (1u << HIERAGG_OPK_MIN);
    o.allreduceOps[HIERAGG_ELEM_INT64] = 1u << HIERAGG_OPK_SUM;
    o.maxCount = 1u << 30;
    o.maxBytes = maxBytes;
    o.members = members;
    o.preferred = preferred;
    return o;
}

CollCall call(hieragg_coll_kind kind, int rank, int size, const hier::Hierarchy* h, const OffloadCaps* o,
              size_t count, int elem = HIERAGG_ELEM_DOUBLE, int opKind = HIERAGG_OPK_SUM, bool commutative = true) {
    CollCall c = baseCall(kind, rank, size, h);
    c.args.scount = c.args.rcount = count;
    c.args.op_commutative = commutative ? 1 : 0;
    c.rtype = c.stype = hieragg_dtype_info{8, 0, 8, 0, 8};
    c.offload = o;
    c.elemKind = elem;
    c.opKind = opKind;
    c.segmentBytes = 16384;
    return c;
}

const char* leaderAlgo(const CollCall& c) {
    const hier::Plan p = hier::choosePlan(c, hier::CostParams::defaults());
    return p.mode == hier::Plan::Mode::Levels && p.stages.back().algo ? p.stages.back().algo->name : "";
}

size_t fabricSteps(const CollCall& c) { return recipes::buildSchedule(c).countKind(StepKind::Collective); }

}  // namespace

TEST(Offload, NeedAdmitsOnlyPredefinedCommutativeOrderSafeCalls) {
    const hier::Hierarchy h = virtualNodes(8, 4);
    const OffloadCaps o = caps(2, true);
    EXPECT_TRUE(hier::offloadServes(call(HIERAGG_ALLREDUCE, 0, 8, &h, &o, 100)));
    EXPECT_FALSE(hier::offloadServes(call(HIERAGG_ALLREDUCE, 0, 8, &h, nullptr, 100))) << "no group";
    EXPECT_FALSE(hier::offloadServes(call(HIERAGG_ALLREDUCE, 0, 8, &h, &o, 100, HIERAGG_ELEM_DOUBLE,
                                          HIERAGG_OPK_NONE)))
        << "user-defined op";
    EXPECT_FALSE(hier::offloadServes(call(HIERAGG_ALLREDUCE, 0, 8, &h, &o, 100, HIERAGG_ELEM_DOUBLE,
                                          HIERAGG_OPK_SUM, false)))
        << "non-commutative";
    EXPECT_FALSE(hier::offloadServes(call(HIERAGG_ALLREDUCE, 0, 8, &h, &o, 100, HIERAGG_ELEM_NONE)))
        << "no single basic type (e.g. MAXLOC pairs)";
    EXPECT_FALSE(hier::offloadServes(call(HIERAGG_ALLREDUCE, 0, 8, &h, &o, 100, HIERAGG_ELEM_FLOAT)))
        << "pair the provider does not offer";
    EXPECT_FALSE(hier::offloadServes(call(HIERAGG_ALLREDUCE, 0, 8, &h, &o, 0))) << "empty";
    // A fixed combination order required: floating sums no (the provider does not fix it),
    // MIN and integer sums yes (order-independent), and a provider that fixes it: yes.
    CollCall ordered = call(HIERAGG_ALLREDUCE, 0, 8, &h, &o, 100);
    ordered.fixedOrderRequired = true;
    EXPECT_FALSE(hier::offloadServes(ordered));
    ordered.opKind = HIERAGG_OPK_MIN;
    EXPECT_TRUE(hier::offloadServes(ordered));
    ordered.opKind = HIERAGG_OPK_SUM;
    ordered.elemKind = HIERAGG_ELEM_INT64;
    EXPECT_TRUE(hier::offloadServes(ordered));
    OffloadCaps fixed = o;
    fixed.fixedOrder = true;
    ordered.elemKind = HIERAGG_ELEM_DOUBLE;
    ordered.offload = &fixed;
    EXPECT_TRUE(hier::offloadServes(ordered));
    // Barrier and bcast; no decomposition, no offload.
    EXPECT_TRUE(hier::offloadServes(call(HIERAGG_BARRIER, 0, 8, &h, &o, 0)));
    EXPECT_TRUE(hier::offloadServes(call(HIERAGG_BCAST, 0, 8, &h, &o, 10)));
    EXPECT_FALSE(hier::offloadServes(call(HIERAGG_REDUCE, 0, 8, &h, &o, 10)));
    const hier::Hierarchy flat = hier::Hierarchy::flat(8);
    EXPECT_FALSE(hier::offloadServes(call(HIERAGG_BARRIER, 0, 8, &flat, &o, 0)));
}

TEST(Offload, SelectionPrefersOfiWhenAskedAndFollowsTheModelInAuto) {
    const hier::Hierarchy h = virtualNodes(8, 4);
    const OffloadCaps ofi = caps(2, true), autoMode = caps(2, false);
    for (auto kind : {HIERAGG_ALLREDUCE, HIERAGG_BCAST, HIERAGG_BARRIER}) {
        EXPECT_STREQ(leaderAlgo(call(kind, 0, 8, &h, &ofi, 1000)), "ofi") << hieragg_coll_name(kind);
        // Defaults: one offloaded round (25 us) costs more than a network message (3 us).
        EXPECT_STRNE(leaderAlgo(call(kind, 0, 8, &h, &autoMode, 1000)), "ofi") << hieragg_coll_name(kind);
        // A user op never goes to the fabric, even when asked.
        if (kind == HIERAGG_ALLREDUCE)
            EXPECT_STRNE(leaderAlgo(call(kind, 0, 8, &h, &ofi, 1000, HIERAGG_ELEM_DOUBLE, HIERAGG_OPK_NONE)), "ofi");
    }
    // Cheap offloaded rounds: auto takes them where the model predicts less.
    hier::CostParams cheap = hier::CostParams::defaults();
    cheap.offload.alpha_us = 0.5;
    const CollCall b = call(HIERAGG_BARRIER, 0, 8, &h, &autoMode, 0);
    const hier::Plan p = hier::choosePlan(b, cheap);
    ASSERT_TRUE(p.stages.back().algo);
    EXPECT_STREQ(p.stages.back().algo->name, "ofi");
    EXPECT_NE(p.describe().find("ofi-barrier"), std::string::npos) << p.describe();
}

TEST(Offload, OnlyLeadersHoldFabricStepsAndAllTheSameNumber) {
    // 8 ranks in blocks of 3: leaders 0, 3, 6.
    const int p = 8;
    const hier::Hierarchy h = virtualNodes(p, 3);
    const OffloadCaps o = caps(3, true, 4096);
    // Allreduce of 5000 doubles, pulses of 16384 B (2048 elements): 2048 + 2048 + 904;
    // operations of at most 4096 B (512 elements): 4 + 4 + 2 = 10 per leader.
    for (int r = 0; r < p; ++r) {
        const size_t n = fabricSteps(call(HIERAGG_ALLREDUCE, r, p, &h, &o, 5000));
        EXPECT_EQ(n, r % 3 == 0 ? 10u : 0u) << "allreduce rank " << r;
    }
    // Bcast of 10000 bytes from a non-leader: pieces of 4095 B (a multiple of 3 members):
    // 3 operations per leader; the root hands the message to its leader first.
    for (int r = 0; r < p; ++r) {
        CollCall c = call(HIERAGG_BCAST, r, p, &h, &o, 10000);
        c.rtype = c.stype = hieragg_dtype_info{1, 0, 1, 0, 1};
        c.args.root = 4;
        const Schedule s = recipes::buildSchedule(c);
        EXPECT_EQ(s.countKind(StepKind::Collective), r % 3 == 0 ? 3u : 0u) << "bcast rank " << r;
        if (r == 4) EXPECT_GE(s.countKind(StepKind::Send), 1u);
        if (r % 3 == 0) EXPECT_NE(s.algorithm.find("leaders:ofi-bcast"), std::string::npos) << s.algorithm;
    }
    for (int r = 0; r < p; ++r) {
        const Schedule s = recipes::buildSchedule(call(HIERAGG_BARRIER, r, p, &h, &o, 0));
        EXPECT_EQ(s.countKind(StepKind::Collective), r % 3 == 0 ? 1u : 0u) << "barrier rank " << r;
    }
}

// With the default costs (a software provider) the model never picks an offloaded leader
// stage, so coll_hieragg_offload=auto leaves the backend closed (docs/offload.md).
TEST(Offload, DefaultCostsKeepAutoOnPointToPoint) {
    for (int p : {4, 8, 16, 64})
        for (int block : {1, 2, 4}) {
            const hier::Hierarchy h = virtualNodes(p, block);
            if (h.isTrivial()) continue;
            const OffloadCaps o = caps(p / block, false);
            for (size_t bytes : {size_t{0}, size_t{8}, size_t{4096}, size_t{65536}, size_t{1} << 20})
                for (auto kind : {HIERAGG_ALLREDUCE, HIERAGG_BCAST, HIERAGG_BARRIER}) {
                    if ((kind == HIERAGG_BARRIER) != (bytes == 0)) continue;
                    CollCall c = call(kind, 0, p, &h, &o, kind == HIERAGG_ALLREDUCE ? bytes / 8 : bytes);
                    if (kind == HIERAGG_BCAST) c.rtype = c.stype = hieragg_dtype_info{1, 0, 1, 0, 1};
                    c.segmentBytes = 65536;
                    const hier::Plan plan = hier::choosePlan(c, hier::CostParams::defaults());
                    EXPECT_STRNE(leaderAlgo(c), "ofi") << hieragg_coll_name(kind) << " p=" << p << " block=" << block
                                                       << " bytes=" << bytes << "\n" << plan.describe();
                }
        }
}

// Costs as measured between emulated nodes (one round of the provider ~ one network
// message): the model picks the offloaded allreduce (one exchange per round against the
// point-to-point reduce-then-bcast) and keeps bcast point-to-point, as measured
// (docs/offload.md, "Measured").
TEST(Offload, CalibratedCostsPickAllreduceNotBcast) {
    const hier::Hierarchy h = virtualNodes(4, 2);
    const OffloadCaps o = caps(2, false);
    hier::CostParams p = hier::CostParams::defaults();
    p.link[hier::kLinkNetwork] = {60.0, 8.0 / 1000, 0.2, 1.0 / 4000};
    p.offload = {60.0, 8.0 / 1000, 0.0, 1.0 / 4000};
    for (size_t bytes : {size_t{8}, size_t{4096}, size_t{65536}}) {
        const hier::Plan a = hier::choosePlan(call(HIERAGG_ALLREDUCE, 0, 4, &h, &o, bytes / 8), p);
        ASSERT_TRUE(a.stages.back().algo);
        // Among the reduce-then-bcast plans the offloaded leader stage wins; from 64 KiB the
        // multi-leader composition (no root, issue 7) may predict less than both and win.
        const std::string name = a.stages.back().algo->name;
        if (bytes < 65536 || a.mode == hier::Plan::Mode::Levels)
            EXPECT_EQ(name, "ofi") << bytes << "\n" << a.describe();
        else
            EXPECT_EQ(name.rfind("multileader_", 0), 0u) << bytes << "\n" << a.describe();
        CollCall b = call(HIERAGG_BCAST, 0, 4, &h, &o, bytes);
        b.rtype = b.stype = hieragg_dtype_info{1, 0, 1, 0, 1};
        const hier::Plan bp = hier::choosePlan(b, p);
        ASSERT_TRUE(bp.stages.back().algo);
        EXPECT_STRNE(bp.stages.back().algo->name, "ofi") << bytes << "\n" << bp.describe();
    }
}
