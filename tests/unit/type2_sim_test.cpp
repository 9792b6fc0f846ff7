// Type II switch trees executed in software (SwitchTree.hpp, registry row "type2"):
// forced on decompositions from topology files, bcast / reduce / allreduce give the
// closed-form results on the simulator with one message per tree edge; the rank tree
// has one proxy per kept switch and respects the degree limit; entry budgets and
// degree limits that leave no tree fall back to the type I tree with a note; a forced
// type2 without switch levels is refused; the model picks type II or I by size.
#include <gtest/gtest.h>

#include <set>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Decomposition.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/SwitchTree.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

const std::string kTwoLevel = std::string(HIERAGG_TEST_DATA_DIR) + "/slurm_topology_two_level.conf";
const std::string kThreeLevel = std::string(HIERAGG_TEST_DATA_DIR) + "/slurm_topology_three_level.conf";

// A communicator laid out on hosts `hosts[i]` with `perNode` consecutive ranks each,
// decomposed by `split` as the runtime does.
struct Topo {
    std::string name;
    hier::Hierarchy h;
    std::vector<int> links;
    int size = 0;
};
Topo topo(const std::string& split, const std::vector<std::string>& hosts, int perNode) {
    std::vector<hier::RankIdentity> ids;
    for (const std::string& host : hosts)
        for (int i = 0; i < perNode; ++i) ids.push_back({static_cast<int>(ids.size()), host, -1});
    hier::DecompositionResult d = hier::decomposeValue(split, ids);
    EXPECT_FALSE(d.fellBack()) << d.warning;
    Topo t;
    t.name = split.substr(0, split.find('/')) + " " + std::to_string(hosts.size()) + "x" + std::to_string(perNode);
    t.links = hier::stageLinks(d.levelNames, d.hierarchy.levels());
    t.h = std::move(d.hierarchy);
    t.size = static_cast<int>(ids.size());
    return t;
}
std::vector<std::string> hostsN(std::initializer_list<int> ns, const char* prefix = "n") {
    std::vector<std::string> v;
    for (int n : ns) v.push_back(prefix + std::to_string(n));
    return v;
}
std::vector<std::string> twoLevelHosts(std::initializer_list<int> ns) {
    std::vector<std::string> v;
    for (int n : ns) v.push_back((n < 10 ? "node0" : "node") + std::to_string(n));
    return v;
}

std::vector<Topo> topologies() {
    std::vector<Topo> v;
    // Leaf switches only (two-level file, top pruned): 3 leaves.
    v.push_back(topo("topology:" + kTwoLevel, twoLevelHosts({0, 1, 16, 17, 18, 40}), 1));
    // Nodes below the switches: NICs are nodes, their ranks combined first.
    v.push_back(topo("node,topology:" + kTwoLevel, twoLevelHosts({0, 1, 16, 33, 50}), 2));
    // Three switch levels, uneven.
    v.push_back(topo("topology:" + kThreeLevel, hostsN({0, 1, 2, 3, 5, 6, 9, 10, 11}), 1));
    v.push_back(topo("node,topology:" + kThreeLevel, hostsN({0, 2, 4, 5, 7, 11}), 3));
    return v;
}

int type2Value(hieragg_coll_kind k) { return hier::algorithmValue(*hier::algorithmByName(k, "type2")); }

CollCall callOn(const Topo& t, hieragg_coll_kind kind, int rank, int root) {
    CollCall c = reductionCall(kind, rank, t.size, &t.h, sumOp(), 12, 1 << 16, type2Value(kind));
    c.stageLinks = &t.links;
    c.args.root = root;
    return c;
}

std::shared_ptr<const hier::Plan> runAll(sim::SimNetwork& net, std::vector<CollCall>& calls, const std::string& what) {
    auto res = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << what << ": " << res.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u) << what;
    CollCall c0 = calls[0];
    describeTypes(c0, net.transport(0));
    return hier::planOf(c0);
}

}  // namespace

TEST(TypeTwo, RowsAndNeeds) {
    for (hieragg_coll_kind k : {HIERAGG_BCAST, HIERAGG_REDUCE, HIERAGG_ALLREDUCE}) {
        const hier::AlgorithmInfo* a = hier::algorithmByName(k, "type2");
        ASSERT_NE(a, nullptr) << hieragg_coll_name(k);
        EXPECT_NE(a->tree, nullptr);  // it builds its own tree over every level
        EXPECT_TRUE(a->needs & hier::kNeedsSwitchLevels);
    }
    // A decomposition without switch levels (virtual nodes): refused, naming the need.
    hier::Hierarchy v = virtualNodes(6, 2);
    CollCall c = reductionCall(HIERAGG_ALLREDUCE, 0, 6, &v, sumOp(), 4, 1 << 16, type2Value(HIERAGG_ALLREDUCE));
    std::string why;
    EXPECT_EQ(hier::forcedAlgorithm(c, &why), nullptr);
    EXPECT_NE(why.find("needs switch levels"), std::string::npos) << why;
    // The model's choice runs: not a type II plan.
    const hier::Plan plan = hier::choosePlan(c, hier::CostParams::defaults());
    for (const auto& s : plan.stages) EXPECT_TRUE(!s.algo || std::string(s.algo->name) != "type2");
    // With switch levels it is accepted; a non-commutative reduction is refused.
    const Topo t = topologies()[0];
    CollCall ok = callOn(t, HIERAGG_REDUCE, 0, 0);
    EXPECT_NE(hier::forcedAlgorithm(ok), nullptr);
    ok.args.op_commutative = 0;
    EXPECT_EQ(hier::forcedAlgorithm(ok, &why), nullptr);
    EXPECT_NE(why.find("commutative"), std::string::npos) << why;
}

// The rank tree: a valid tree rooted at the root, one proxy per kept switch (the root
// or the lowest rank below it), no switch over K children, ranks of a NIC under its proxy.
TEST(TypeTwo, RankTreeHasOneProxyPerKeptSwitch) {
    for (const Topo& t : topologies())
        for (int K : {2, 3, 4, 32}) {
            const hier::SwitchTree st = hier::allocateSwitchTree(t.h, t.links, 16, K);
            if (!st.allocated) {
                EXPECT_LT(K, 4) << t.name << ": " << st.reason;
                continue;
            }
            const aggtree::Tree& sw = st.tree.tree;
            for (int v = 0; v < sw.size(); ++v)
                if (st.fabric.isSwitch(st.tree.fabricVertex[v]))
                    EXPECT_LE(static_cast<int>(sw.children[v].size()), K) << t.name;
            for (int root : {0, t.size / 2, t.size - 1}) {
                const aggtree::Tree rt = st.rankTree(t.size, root);
                ASSERT_TRUE(rt.isValid()) << t.name << " K=" << K << " root " << root;
                EXPECT_EQ(rt.root, root);
                // Every rank's parent is a NIC-mate's proxy or a kept switch's proxy: count the
                // distinct parents against kept switches + NICs.
                std::set<int> parents;
                for (int r = 0; r < t.size; ++r)
                    if (rt.parent[r] >= 0) parents.insert(rt.parent[r]);
                EXPECT_LE(static_cast<int>(parents.size()), st.switchesKept + static_cast<int>(st.fabric.nics().size()));
                // Ranks of one NIC: all but its proxy hang from the proxy.
                for (int nic : st.fabric.nics()) {
                    const auto& ranks = st.ranksOfNic[nic];
                    int proxy = ranks.front();
                    for (int r : ranks) if (r == root) proxy = r;
                    for (int r : ranks)
                        if (r != proxy) EXPECT_EQ(rt.parent[r], proxy) << t.name;
                }
            }
        }
}

// Forced type2, bcast: every rank holds the root's data, p - 1 messages (one per edge).
TEST(TypeTwo, BcastIsCorrect) {
    for (const Topo& t : topologies())
        for (int root : {0, t.size / 2, t.size - 1}) {
            const size_t count = 16;
            sim::SimNetwork net(t.size);
            std::vector<std::vector<int64_t>> buf(t.size, std::vector<int64_t>(count, -1));
            for (size_t i = 0; i < count; ++i) buf[root][i] = 1000 * root + static_cast<int64_t>(i);
            std::vector<CollCall> calls;
            for (int r = 0; r < t.size; ++r) {
                CollCall c = callOn(t, HIERAGG_BCAST, r, root);
                c.args.rbuf = buf[r].data();
                c.args.rcount = count;
                calls.push_back(c);
            }
            const std::string what = "bcast " + t.name + " root " + std::to_string(root);
            auto plan = runAll(net, calls, what);
            ASSERT_TRUE(plan);
            ASSERT_EQ(plan->mode, hier::Plan::Mode::Whole) << what;
            EXPECT_STREQ(plan->stages[0].algo->name, "type2") << what;
            EXPECT_NE(plan->describe().find("K=32, switches="), std::string::npos) << plan->describe();
            for (int r = 0; r < t.size; ++r)
                for (size_t i = 0; i < count; ++i)
                    ASSERT_EQ(buf[r][i], 1000 * root + static_cast<int64_t>(i)) << what << " rank " << r;
            EXPECT_EQ(net.totalMessages(), static_cast<uint64_t>(t.size - 1)) << what;
        }
}

// Forced type2, reduce and allreduce (sum): closed form sum_r rankInput(r), several pulses too.
TEST(TypeTwo, ReduceAndAllreduceAreCorrect) {
    for (const Topo& t : topologies())
        for (hieragg_coll_kind kind : {HIERAGG_REDUCE, HIERAGG_ALLREDUCE})
            for (size_t segment : {size_t{1} << 16, size_t{32}})  // one pulse; 4 pulses of 4 elements
                for (int root : {0, t.size - 1}) {
                    const size_t count = 13;
                    sim::SimNetwork net(t.size);
                    std::vector<std::vector<int64_t>> in(t.size), out(t.size, std::vector<int64_t>(count, -9));
                    std::vector<CollCall> calls;
                    for (int r = 0; r < t.size; ++r) {
                        in[r] = rankInput(r, count);
                        CollCall c = callOn(t, kind, r, kind == HIERAGG_ALLREDUCE ? 0 : root);
                        c.args.scount = c.args.rcount = count;
                        c.segmentBytes = segment;
                        c.args.sbuf = in[r].data();
                        c.args.rbuf = out[r].data();
                        calls.push_back(c);
                    }
                    const std::string what = std::string(hieragg_coll_name(kind)) + " " + t.name + " root " +
                                             std::to_string(root) + " seg " + std::to_string(segment);
                    auto plan = runAll(net, calls, what);
                    ASSERT_TRUE(plan);
                    EXPECT_STREQ(plan->stages.at(0).algo->name, "type2") << what;
                    std::vector<int64_t> expect(count, 0);
                    for (int r = 0; r < t.size; ++r)
                        for (size_t i = 0; i < count; ++i) expect[i] += in[r][i];
                    for (int r = 0; r < t.size; ++r)
                        if (kind == HIERAGG_ALLREDUCE || r == root) EXPECT_EQ(out[r], expect) << what << " rank " << r;
                    if (segment > count * 8) {
                        const uint64_t edges = static_cast<uint64_t>(t.size - 1);
                        EXPECT_EQ(net.totalMessages(), (kind == HIERAGG_ALLREDUCE ? 2 : 1) * edges) << what;
                    }
                }
}

// No entries, or a degree limit no tree meets: type II is not available, the forced row
// falls back to the type I tree (hier_knomial) with a note naming why, and runs correctly.
TEST(TypeTwo, BudgetsFallBackToTypeOne) {
    const Topo t = topologies()[0];  // 3 leaf switches with 2, 3, 1 ranks
    struct Case { int entries, degree; const char* why; };
    for (const Case& k : {Case{0, 32, "coll_hieragg_switch_entries=0"}, Case{16, 1, "coll_hieragg_switch_degree=1"},
                          Case{16, 2, "no minimum-cost tree"}}) {
        const hier::SwitchTree st = hier::allocateSwitchTree(t.h, t.links, k.entries, k.degree);
        EXPECT_FALSE(st.allocated) << k.why;
        EXPECT_NE(st.reason.find(k.why), std::string::npos) << st.reason;
        sim::SimNetwork net(t.size);
        std::vector<std::vector<int64_t>> in(t.size), out(t.size, std::vector<int64_t>(4, -9));
        std::vector<CollCall> calls;
        for (int r = 0; r < t.size; ++r) {
            in[r] = rankInput(r, 4);
            CollCall c = callOn(t, HIERAGG_ALLREDUCE, r, 0);
            c.args.scount = c.args.rcount = 4;
            c.switchEntries = k.entries;
            c.switchDegree = k.degree;
            c.args.sbuf = in[r].data();
            c.args.rbuf = out[r].data();
            calls.push_back(c);
        }
        auto plan = runAll(net, calls, k.why);
        ASSERT_TRUE(plan);
        EXPECT_STREQ(plan->stages.at(0).algo->name, "hier_knomial") << k.why;
        EXPECT_NE(plan->stages[0].why.find("fell back to type I"), std::string::npos) << plan->stages[0].why;
        EXPECT_NE(plan->note.find("type II tree not available"), std::string::npos) << plan->note;
        EXPECT_NE(plan->note.find(k.why), std::string::npos) << plan->note;
        const std::vector<int64_t> expect = rankOrderProduct(sumOp(), in, 0, t.size);
        for (int r = 0; r < t.size; ++r) EXPECT_EQ(out[r], expect) << k.why << " rank " << r;
    }
    // Auto with no entries: never type II, and the note says why.
    CollCall c = callOn(t, HIERAGG_BCAST, 0, 0);
    c.algorithm = 0;
    c.switchEntries = 0;
    const hier::Plan plan = hier::choosePlan(c, hier::CostParams::defaults());
    for (const auto& s : plan.stages) EXPECT_TRUE(!s.algo || std::string(s.algo->name) != "type2");
    EXPECT_NE(plan.note.find("coll_hieragg_switch_entries=0"), std::string::npos) << plan.note;
}

// The model prices the proxies' rank tree edge by edge with the link parameters of the
// decomposition: with K above the NIC count the minimum-cost tree keeps one switch, so the
// root's proxy serves every other rank (SPEC 3.2: one entry per communicator), which wins
// for small messages (one start-up) and loses for long ones (the root sends everything).
TEST(TypeTwo, ModelChoosesTypeTwoOrOneBySize) {
    const Topo t = topologies()[2];  // 9 ranks on n0,n1 | n2,n3 | n5,n6 | n9,n10,n11 (3 switch levels)
    const hier::CostParams p = hier::CostParams::defaults();
    for (hieragg_coll_kind kind : {HIERAGG_BCAST, HIERAGG_REDUCE, HIERAGG_ALLREDUCE}) {
        CollCall c = callOn(t, kind, 0, 0);
        c.algorithm = 0;
        c.rtype = c.stype = {8, 0, 8, 0, 8};
        c.args.rcount = c.args.scount = 1;
        const hier::Plan small = hier::choosePlan(c, p);
        ASSERT_EQ(small.mode, hier::Plan::Mode::Whole) << small.describe();
        EXPECT_STREQ(small.stages[0].algo->name, "type2") << small.describe();
        EXPECT_NE(small.stages[0].why.find("switches=1 of"), std::string::npos) << small.describe();
        // Closed form: a star from rank 0, children served in rank order (equal subtrees);
        // rank 1 shares rank 0's leaf switch (network link), the others cross switches.
        auto edge = [&](int cls, int j) {
            const hier::LinkCost& l = p.link[cls];
            const bool reduces = kind != HIERAGG_BCAST;
            return l.alpha_us + j * (l.theta_us + 8 * l.beta_us_per_byte + (reduces ? 8 * l.gamma_us_per_byte : 0));
        };
        double star = edge(hier::kLinkNetwork, 1);
        for (int j = 2; j <= 8; ++j) star = std::max(star, edge(hier::kLinkSwitch, j));
        EXPECT_NEAR(small.predUs, kind == HIERAGG_ALLREDUCE ? 2 * star : star, 1e-6) << hieragg_coll_name(kind);
        c.args.rcount = c.args.scount = size_t{1} << 19;  // 4 MiB
        const hier::Plan large = hier::choosePlan(c, p);
        for (const auto& s : large.stages)
            EXPECT_TRUE(!s.algo || std::string(s.algo->name) != "type2") << large.describe();
    }
}
