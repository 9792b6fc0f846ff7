// scan/exscan's leader_chain row on the simulator: results in rank order (sum and the
// non-commutative 2x2 matrix product) on contiguous decompositions with uneven groups and
// groups of one, in place, zero counts, several pulses; every message goes from a lower
// to a higher rank (what lets back-to-back calls overlap), and G - 1 messages per pulse
// cross between groups. The model prices it by one call's latency, G - 1 crossings in
// turn, against the other rows' closed forms (below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

int chainValue(hieragg_coll_kind k) { return hier::algorithmValue(*hier::algorithmByName(k, "leader_chain")); }

struct Traffic {
    uint64_t cross = 0;     // messages between different outermost groups
    uint64_t backward = 0;  // messages from a higher rank to a lower one
};

Traffic check(int p, const hier::Hierarchy& h, sim::SimOp& op, bool exclusive, size_t count, size_t seg,
              bool inPlace, const std::string& what, std::string* algorithm = nullptr) {
    const hieragg_coll_kind kind = exclusive ? HIERAGG_EXSCAN : HIERAGG_SCAN;
    std::vector<std::vector<int64_t>> in(p), out(p);
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, count);
        out[r] = inPlace ? in[r] : std::vector<int64_t>(count, -7);
    }
    sim::SimNetwork net(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        CollCall c = reductionCall(kind, r, p, &h, op, count, seg, chainValue(kind));
        setBuffers(c, in[r], out[r], inPlace);
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << what << ": " << res.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u) << what;
    Traffic t;
    if (!res.ok) return t;
    if (algorithm) *algorithm = res.algorithms[0];
    for (int r = 0; r < p; ++r) {
        if (exclusive && r == 0) {
            EXPECT_EQ(out[0], inPlace ? in[0] : std::vector<int64_t>(count, -7)) << what << " rank 0 touched";
            continue;
        }
        if (count == 0) continue;
        EXPECT_EQ(out[r], rankOrderProduct(op, in, 0, exclusive ? r : r + 1)) << what << " rank " << r;
    }
    const int top = h.levels() - 1;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d) {
            const uint64_t m = net.traffic(s, d).messages;
            if (h.groupOf(top, s) != h.groupOf(top, d)) t.cross += m;
            if (s > d) t.backward += m;
        }
    return t;
}

CollCall modelCall(int p, const hier::Hierarchy& h, sim::SimNetwork& net) {
    CollCall c = reductionCall(HIERAGG_SCAN, 0, p, &h, sumOp(), 1, 1 << 16);  // one int64: 8 B
    describeTypes(c, net.transport(0));
    return c;
}

// The emulated cluster's network as the calibration measures it (alpha 100 us, 10.7 ns/B).
hier::CostParams emulatedNetwork() {
    hier::CostParams p = hier::CostParams::defaults();
    p.link[hier::kLinkNetwork].alpha_us = 100;
    p.link[hier::kLinkNetwork].beta_us_per_byte = 0.0107;
    return p;
}

}  // namespace

TEST(ScanLeaderChain, RankOrderOnContiguousGroups) {
    for (int p = 1; p <= 10; ++p)
        for (int block : {1, 2, 3, 4}) {
            const hier::Hierarchy h = virtualNodes(p, block);
            for (bool ex : {false, true})
                for (sim::SimOp* op : {&sumOp(), &matmulOp()}) {
                    const std::string what = std::string(ex ? "exscan" : "scan") + " p=" + std::to_string(p) +
                                             " virtual:" + std::to_string(block) +
                                             (op->commutative ? " sum" : " matmul");
                    check(p, h, *op, ex, 8, 1 << 16, false, what);
                    check(p, h, *op, ex, 12, 32, false, what + " pulses");  // 3 pulses of 4
                    check(p, h, *op, ex, 8, 1 << 16, true, what + " in place");
                    check(p, h, *op, ex, 0, 1 << 16, false, what + " zero");
                    if (::testing::Test::HasFatalFailure()) return;
                }
        }
    for (int p : {5, 9})
        for (bool ex : {false, true}) check(p, nestedNodes(p, 2, 4), matmulOp(), ex, 8, 1 << 16, false, "nested");
}

TEST(ScanLeaderChain, EveryMessageGoesToAHigherRankAndGroupsPassOnePrefix) {
    for (auto [p, block] : {std::pair{8, 4}, std::pair{8, 2}, std::pair{10, 3}, std::pair{7, 3}})
        for (bool ex : {false, true}) {
            const hier::Hierarchy h = virtualNodes(p, block);
            const int groups = (p + block - 1) / block;
            std::string algorithm;
            const Traffic one = check(p, h, sumOp(), ex, 8, 1 << 16, false, "one pulse", &algorithm);
            EXPECT_EQ(algorithm, ex ? "leader-chain-exscan" : "leader-chain-scan");
            EXPECT_EQ(one.backward, 0u) << "p=" << p << " block " << block;
            EXPECT_EQ(one.cross, static_cast<uint64_t>(groups - 1)) << "p=" << p << " block " << block;
            const Traffic three = check(p, h, sumOp(), ex, 12, 32, false, "3 pulses");
            EXPECT_EQ(three.backward, 0u);
            EXPECT_EQ(three.cross, 3u * static_cast<uint64_t>(groups - 1));
        }
}

TEST(ScanLeaderChain, NonContiguousGroupsAreRefused) {
    const int p = 6;
    const hier::Hierarchy rr = roundRobin(p, 2);
    CollCall c = reductionCall(HIERAGG_SCAN, 0, p, &rr, sumOp(), 8, 1 << 16, chainValue(HIERAGG_SCAN));
    EXPECT_EQ(hier::unmetNeed(*hier::algorithmByName(HIERAGG_SCAN, "leader_chain"), c), "needs contiguous groups");
    std::string algorithm;
    check(p, rr, matmulOp(), false, 8, 1 << 16, false, "round robin", &algorithm);
    EXPECT_EQ(algorithm, "flat-recursive-doubling-scan");
}

// 8 ranks as 4 nodes x 2 (block), 8 B, the network of emulatedNetwork(): every row priced
// by one call's latency. The chain: group 0's one exchange round, then 3 crossings in turn,
// each followed by the next group's one bcast round and its last rank's combine. The
// leader prefix: one in-group exchange round, 2 exchange rounds between the 4 leaders, one
// bcast round, the combine. Linear: 3 network hops and 4 node hops. Recursive doubling: 3
// rounds that all cross (d = 1 from 1 node, d = 2 and 4 from both ranks of a node at once).
// A hop is one ping-pong's one way (alpha, no theta: one message per receiver); an exchange
// round the measured round, else alpha + theta. The plan takes the cheapest and predicts
// its price; with an exchange round of two
// start-ups (a loaded network) the leaders' exscan costs more than 3 crossings in turn.
TEST(ScanLeaderChain, ModelPricesTheRowsByTheirCrossings) {
    const int p = 8;
    const hier::Hierarchy h = virtualNodes(p, 2);
    sim::SimNetwork net(p);
    const CollCall c = modelCall(p, h, net);
    for (double exchangeOfAlpha : {0.0, 2.0}) {
        hier::CostParams params = emulatedNetwork();
        hier::LinkCost& nw = params.link[hier::kLinkNetwork];
        if (exchangeOfAlpha > 0) nw.exchange_us = exchangeOfAlpha * nw.alpha_us;
        const hier::LinkCost& in = params.link[hier::kLinkNode];
        const double S = 8;
        auto round = [&](const hier::LinkCost& l, bool reduces) {
            return l.alpha_us + S * (l.beta_us_per_byte + (reduces ? l.gamma_us_per_byte : 0));
        };
        auto exchange = [&](const hier::LinkCost& l, int k) {
            const double E = l.exchange_us >= 0 ? l.exchange_us : l.alpha_us + l.theta_us;
            const double burst = l.burst_us >= 0 ? l.burst_us : l.theta_us;
            return E + (k - 1) * burst + k * S * l.beta_us_per_byte + S * l.gamma_us_per_byte;
        };
        const double chain = exchange(in, 1) + 3 * (round(nw, false) + round(in, false) + S * in.gamma_us_per_byte);
        const double prefix = exchange(in, 1) + 2 * exchange(nw, 1) + round(in, false) + S * in.gamma_us_per_byte;
        const double linear = 3 * round(nw, true) + 4 * round(in, true);
        const double doubling = exchange(nw, 1) + 2 * exchange(nw, 2);
        const std::map<std::string, double> rows = {
            {"leader_chain", chain}, {"leader_prefix", prefix}, {"linear", linear}, {"recursive_doubling", doubling}};
        for (const auto& [name, us] : rows) {
            CollCall forced = c;
            forced.algorithm = hier::algorithmValue(*hier::algorithmByName(HIERAGG_SCAN, name));
            EXPECT_NEAR(hier::choosePlan(forced, params).predUs, us, 1e-9 * us) << name << " E=" << exchangeOfAlpha;
        }
        const auto best = std::min_element(rows.begin(), rows.end(),
                                           [](const auto& a, const auto& b) { return a.second < b.second; });
        const hier::Plan plan = hier::choosePlan(c, params);
        ASSERT_TRUE(plan.stages.at(0).algo);
        EXPECT_EQ(plan.stages[0].algo->name, best->first) << plan.describe();
        EXPECT_NEAR(plan.predUs, best->second, 1e-9 * best->second);
        // Unmeasured exchange (alpha + theta): the exscan's 2 rounds beat 3 crossings in
        // turn; an exchange of two start-ups: 3 one-way crossings win, the rank chain's (its
        // node hops one way too) before the leader chain's (an exchange round in group 0).
        EXPECT_EQ(best->first, exchangeOfAlpha > 0 ? "linear" : "leader_prefix");
    }
}

// Over 8 nodes a lone chain makes 7 crossings in turn, the leaders' exscan 3 rounds: the
// chain loses.
TEST(ScanLeaderChain, ModelKeepsItOffManyGroups) {
    const int p = 16;
    const hier::Hierarchy h = virtualNodes(p, 2);
    sim::SimNetwork net(p);
    const hier::Plan plan = hier::choosePlan(modelCall(p, h, net), emulatedNetwork());
    ASSERT_TRUE(plan.stages[0].algo);
    EXPECT_STRNE(plan.stages[0].algo->name, "leader_chain") << plan.describe();
}
