// Hierarchical gatherv, scatterv, alltoallv and alltoallw in two stages (coll_hier
// TwoStage.hpp) on the simulator: the size stage, then the data stage built from what
// it delivered, as the runtime chains them. Random counts (zeros included), permuted
// displacements with gaps, every root, in place, uneven and round-robin groups, a
// 16-byte type against int64; results against closed forms; messages between groups
// (none in the size stage, exactly one per pair of groups for data) and temporaries
// under coll_hieragg_max_temp_bytes (large blocks then go straight to their owner).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "DataMovementFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/TwoStage.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr int64_t kUntouched = -7;

// Layouts of the call's types, as the simulator's transport describes them.
void describeSimTypes(CollCall& c) {
    static sim::SimNetwork layouts(1);
    describeTypes(c, layouts.transport(0));
}

int hierarchicalRow(hieragg_coll_kind k) {
    return hier::algorithmValue(*hier::algorithmByName(k, "hierarchical"));
}

struct StageTraffic {
    uint64_t sizeCrossing = 0, dataCrossing = 0;
    std::set<std::pair<int, int>> dataPairs;  // (group of sender, group of receiver) of crossing data
    size_t maxTemp = 0;
};

// Runs calls[r] as the runtime does: the size stage, then the data stage.
StageTraffic runTwoStages(std::vector<CollCall>& calls, const hier::Hierarchy& h) {
    const int p = static_cast<int>(calls.size());
    const int level = recipes::aggregationLevel(calls[0]);
    auto groupOf = [&](int r) { return h.groupOf(level, r); };
    std::vector<std::vector<uint64_t>> out(p), learned(p);
    std::vector<CollCall> sizes = calls;
    for (int r = 0; r < p; ++r) {
        EXPECT_TRUE(recipes::twoStage(calls[r]));
        out[r] = recipes::sizeStageInput(calls[r]);
        learned[r].assign(std::max<size_t>(1, recipes::sizeStageLearned(calls[r])), 0);
        sizes[r].args.sbuf = out[r].data();
        sizes[r].args.rbuf = learned[r].data();
        sizes[r].args.in_place = 0;
        sizes[r].varStage = 1;
    }
    StageTraffic t;
    sim::SimNetwork sizeNet(p);
    auto res = sim::runOne(sizeNet, sizes, recipeBuilder());
    EXPECT_TRUE(res.ok) << res.error;
    t.sizeCrossing = crossingMessages(sizeNet, p, groupOf);
    for (int r = 0; r < p; ++r) {
        calls[r].varStage = 2;
        calls[r].learnedBytes = learned[r].data();
        t.maxTemp = std::max(t.maxTemp, recipes::buildSchedule(calls[r]).tempBytes());
    }
    sim::SimNetwork dataNet(p);
    res = sim::runOne(dataNet, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << res.error;
    t.dataCrossing = crossingMessages(dataNet, p, groupOf);
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
            if (groupOf(s) != groupOf(d) && dataNet.traffic(s, d).messages > 0) t.dataPairs.insert({groupOf(s), groupOf(d)});
    return t;
}

std::vector<NamedHierarchy> splitHierarchies(int p) {
    std::vector<NamedHierarchy> out;
    for (const NamedHierarchy& nh : dataMovementHierarchies(p))
        if (nh.h && !nh.h->isTrivial() && nh.name != "virtual1") out.push_back(nh);
    EXPECT_EQ(out.size(), 6u);  // virtual 2, 3, 4, nested 2 in 4, round robin 2, 3
    return out;
}

// Words of rank r's gatherv/scatterv block: even (0, 2, 4) so odd ranks can use the pair type.
std::vector<size_t> randomWords(int p, std::mt19937& rng) {
    std::vector<size_t> w(p);
    for (int r = 0; r < p; ++r) w[r] = 2 * (rng() % 3);
    return w;
}
// Displacements (words) of the blocks placed in a random order with a gap word after each.
std::vector<int> permutedDispls(const std::vector<size_t>& words, std::mt19937& rng, size_t* total) {
    std::vector<int> order(words.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int> displs(words.size());
    size_t at = 0;
    for (int r : order) displs[r] = static_cast<int>(at), at += words[r] + 1;
    *total = at;
    return displs;
}
int64_t value(int r, size_t i) { return 1000 * r + static_cast<int64_t>(i); }

void checkGatherv(int p, const NamedHierarchy& nh, int root, bool inPlace, uint32_t seed, size_t maxTemp,
                  StageTraffic* traffic = nullptr) {
    std::mt19937 rng(seed);
    const std::vector<size_t> words = randomWords(p, rng);
    size_t total = 0;
    const std::vector<int> displs = permutedDispls(words, rng, &total);
    std::vector<int> counts(words.begin(), words.end());
    std::vector<std::vector<int64_t>> send(p);
    std::vector<int64_t> rbuf(total, kUntouched);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        for (size_t i = 0; i < words[r]; ++i) send[r].push_back(value(r, i));
        CollCall c = baseCall(HIERAGG_GATHERV, r, p, nh.h.get());
        c.algorithm = hierarchicalRow(HIERAGG_GATHERV);
        c.maxTempBytes = maxTemp;
        c.args.root = root;
        c.args.sbuf = send[r].data();
        c.args.stype = r % 2 ? &pairType() : &int64Type();
        c.args.scount = r % 2 ? words[r] / 2 : words[r];
        if (r == root) {
            c.args.rbuf = rbuf.data();
            c.args.rtype = &int64Type();
            c.args.rcounts = counts.data();
            c.args.rdispls = displs.data();
            if (inPlace) {
                for (size_t i = 0; i < words[r]; ++i) rbuf[displs[r] + i] = value(r, i);
                c.args.in_place = 1;
                c.args.sbuf = nullptr;
                c.args.stype = nullptr;
                c.args.scount = 0;
            }
        }
        describeSimTypes(c);
        calls.push_back(c);
    }
    const StageTraffic t = runTwoStages(calls, *nh.h);
    if (traffic) *traffic = t;
    std::vector<int64_t> expect(total, kUntouched);
    for (int r = 0; r < p; ++r)
        for (size_t i = 0; i < words[r]; ++i) expect[displs[r] + i] = value(r, i);
    ASSERT_EQ(rbuf, expect) << "gatherv p=" << p << " h=" << nh.name << " root=" << root << " in place=" << inPlace;
}

void checkScatterv(int p, const NamedHierarchy& nh, int root, bool inPlace, uint32_t seed, size_t maxTemp,
                   StageTraffic* traffic = nullptr) {
    std::mt19937 rng(seed);
    const std::vector<size_t> words = randomWords(p, rng);
    size_t total = 0;
    const std::vector<int> displs = permutedDispls(words, rng, &total);
    std::vector<int> counts(words.begin(), words.end());
    std::vector<int64_t> sbuf(total, kUntouched);
    for (int r = 0; r < p; ++r)
        for (size_t i = 0; i < words[r]; ++i) sbuf[displs[r] + i] = value(r, i);
    std::vector<std::vector<int64_t>> recv(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        recv[r].assign(words[r] + 1, kUntouched);
        CollCall c = baseCall(HIERAGG_SCATTERV, r, p, nh.h.get());
        c.algorithm = hierarchicalRow(HIERAGG_SCATTERV);
        c.maxTempBytes = maxTemp;
        c.args.root = root;
        c.args.rbuf = recv[r].data();
        c.args.rtype = r % 2 ? &pairType() : &int64Type();
        c.args.rcount = r % 2 ? words[r] / 2 : words[r];
        if (r == root) {
            c.args.sbuf = sbuf.data();
            c.args.stype = &int64Type();
            c.args.scounts = counts.data();
            c.args.sdispls = displs.data();
            if (inPlace) {
                c.args.in_place = 1;
                c.args.rbuf = nullptr;
                c.args.rtype = nullptr;
                c.args.rcount = 0;
            }
        }
        describeSimTypes(c);
        calls.push_back(c);
    }
    const StageTraffic t = runTwoStages(calls, *nh.h);
    if (traffic) *traffic = t;
    for (int r = 0; r < p; ++r) {
        if (r == root && inPlace) {
            ASSERT_EQ(recv[r], std::vector<int64_t>(words[r] + 1, kUntouched)) << "in-place root's rbuf was written";
            continue;
        }
        std::vector<int64_t> expect(words[r] + 1, kUntouched);
        for (size_t i = 0; i < words[r]; ++i) expect[i] = value(r, i);
        ASSERT_EQ(recv[r], expect) << "scatterv rank " << r << " p=" << p << " h=" << nh.name << " root=" << root;
    }
}

}  // namespace

TEST(TwoStageSim, GathervEveryRootEveryHierarchy) {
    for (int p : {5, 8})
        for (const NamedHierarchy& nh : splitHierarchies(p))
            for (int root = 0; root < p; ++root)
                for (bool inPlace : {false, true})
                    checkGatherv(p, nh, root, inPlace, 17u * p + root, 0);
}

TEST(TwoStageSim, ScattervEveryRootEveryHierarchy) {
    for (int p : {5, 8})
        for (const NamedHierarchy& nh : splitHierarchies(p))
            for (int root = 0; root < p; ++root)
                for (bool inPlace : {false, true})
                    checkScatterv(p, nh, root, inPlace, 31u * p + root, 0);
}

namespace {
// Groups (at the aggregation level) other than the root's holding some block of 1..limit bytes.
size_t groupsWithAggregate(const hier::Hierarchy& h, int level, int root, const std::vector<size_t>& bytes,
                           size_t limit, size_t* direct) {
    size_t n = 0;
    *direct = 0;
    for (int g = 0; g < h.groupCount(level); ++g) {
        if (g == h.groupOf(level, root)) continue;
        bool any = false;
        for (int r : h.groupMembers(level, g)) {
            any |= bytes[r] > 0 && bytes[r] <= limit;
            *direct += bytes[r] > limit;
        }
        n += any;
    }
    return n;
}
}  // namespace

TEST(TwoStageSim, RootedDataCrossesOncePerGroupAndSizesStayInside) {
    const int p = 8;
    for (const NamedHierarchy& nh : splitHierarchies(p))
        for (int root : {0, 3, 7})
            for (bool scatter : {false, true}) {
                const uint32_t seed = (scatter ? 31u : 17u) * p + root;
                StageTraffic t;
                if (scatter)
                    checkScatterv(p, nh, root, false, seed, 0, &t);
                else
                    checkGatherv(p, nh, root, false, seed, 0, &t);
                std::mt19937 rng(seed);
                const std::vector<size_t> words = randomWords(p, rng);
                std::vector<size_t> bytes(p);
                for (int r = 0; r < p; ++r) bytes[r] = 8 * words[r];
                CollCall probe = baseCall(scatter ? HIERAGG_SCATTERV : HIERAGG_GATHERV, 0, p, nh.h.get());
                probe.args.root = root;
                const int level = recipes::aggregationLevel(probe);
                size_t direct = 0;
                const size_t groups =
                    groupsWithAggregate(*nh.h, level, root, bytes, recipes::leaderBlockLimit(probe), &direct);
                EXPECT_EQ(direct, 0u) << "default costs route these small blocks through the leaders";
                EXPECT_EQ(t.sizeCrossing, 0u) << nh.name;
                EXPECT_EQ(t.dataCrossing, groups) << nh.name << " root=" << root << " scatter=" << scatter;
            }
}

TEST(TwoStageSim, RootedTemporariesStayUnderTheLimitLargeBlocksGoDirect) {
    const int p = 8;
    const size_t maxTemp = 96;  // limit 12 bytes a block: 16- and 32-byte blocks go direct
    for (const NamedHierarchy& nh : splitHierarchies(p))
        for (bool scatter : {false, true}) {
            const int root = 2;
            const uint32_t seed = 5u;
            StageTraffic t;
            if (scatter)
                checkScatterv(p, nh, root, false, seed, maxTemp, &t);
            else
                checkGatherv(p, nh, root, false, seed, maxTemp, &t);
            EXPECT_LE(t.maxTemp, maxTemp) << nh.name;
            std::mt19937 rng(seed);
            const std::vector<size_t> words = randomWords(p, rng);
            std::vector<size_t> bytes(p);
            for (int r = 0; r < p; ++r) bytes[r] = 8 * words[r];
            CollCall probe = baseCall(HIERAGG_GATHERV, 0, p, nh.h.get());
            probe.args.root = root;
            probe.maxTempBytes = maxTemp;
            ASSERT_EQ(recipes::leaderBlockLimit(probe), maxTemp / p);
            size_t direct = 0;
            const size_t groups = groupsWithAggregate(*nh.h, recipes::aggregationLevel(probe), root, bytes,
                                                      maxTemp / p, &direct);
            EXPECT_EQ(t.dataCrossing, groups + direct) << nh.name;
        }
}

namespace {
// alltoall(v,w): words from s to d, 0..3 (symmetric when in place: MPI then has one set of counts).
size_t a2aWords(int s, int d, bool inPlace, uint32_t seed) {
    const uint32_t x = inPlace ? (static_cast<uint32_t>(s + d) * 2654435761u) ^ seed
                               : (static_cast<uint32_t>(s * 31 + d) * 2654435761u) ^ seed;
    return (x >> 7) % 4;
}
int64_t a2aValue(int s, int d, size_t i) { return 10000 * s + 100 * d + static_cast<int64_t>(i); }

// alltoallw: blocks sent to odd peers go as 16-byte pairs (counts in pairs), received as int64.
StageTraffic checkAlltoallv(int p, const NamedHierarchy& nh, bool inPlace, bool w, uint32_t seed, size_t maxTemp) {
    std::mt19937 rng(seed);
    auto words = [&](int s, int d) { return 2 * a2aWords(s, d, inPlace, seed); };
    std::vector<std::vector<int64_t>> send(p), recv(p);
    std::vector<std::vector<int>> sc(p), sd(p), rc(p), rd(p);
    std::vector<std::vector<void*>> st(p), rt(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        sc[r].resize(p), sd[r].resize(p), rc[r].resize(p), rd[r].resize(p);
        std::vector<size_t> out(p), in(p);
        for (int d = 0; d < p; ++d) out[d] = words(r, d), in[d] = words(d, r);
        size_t stotal = 0, rtotal = 0;
        const std::vector<int> sdw = permutedDispls(out, rng, &stotal);
        const std::vector<int> rdw = permutedDispls(in, rng, &rtotal);
        send[r].assign(stotal, kUntouched);
        recv[r].assign(rtotal, kUntouched);
        for (int d = 0; d < p; ++d) {
            const bool pair = w && d % 2 == 1;
            for (size_t i = 0; i < out[d]; ++i) send[r][sdw[d] + i] = a2aValue(r, d, i);
            sc[r][d] = static_cast<int>(pair ? out[d] / 2 : out[d]);
            rc[r][d] = static_cast<int>(in[d]);
            // alltoallw displacements are bytes.
            sd[r][d] = w ? 8 * sdw[d] : sdw[d];
            rd[r][d] = w ? 8 * rdw[d] : rdw[d];
            st[r].push_back(pair ? static_cast<void*>(&pairType()) : &int64Type());
            rt[r].push_back(&int64Type());
        }
        CollCall c = baseCall(w ? HIERAGG_ALLTOALLW : HIERAGG_ALLTOALLV, r, p, nh.h.get());
        c.algorithm = hierarchicalRow(c.args.kind);
        c.maxTempBytes = maxTemp;
        c.args.sbuf = send[r].data();
        c.args.rbuf = recv[r].data();
        c.args.scounts = sc[r].data(), c.args.sdispls = sd[r].data();
        c.args.rcounts = rc[r].data(), c.args.rdispls = rd[r].data();
        if (w) {
            c.args.stypes = st[r].data();
            c.args.rtypes = rt[r].data();
        } else {
            c.args.stype = &int64Type();
            c.args.rtype = &int64Type();
        }
        if (inPlace) {
            // In place the counts are the receive ones, and rbuf holds the outgoing blocks.
            for (int d = 0; d < p; ++d)
                for (size_t i = 0; i < in[d]; ++i) recv[r][rdw[d] + i] = a2aValue(r, d, i);
            c.args.in_place = 1;
            c.args.sbuf = nullptr;
            c.args.stype = nullptr;
            c.args.stypes = nullptr;
        }
        describeSimTypes(c);
        calls.push_back(c);
    }
    const StageTraffic t = runTwoStages(calls, *nh.h);
    for (int r = 0; r < p; ++r) {
        std::vector<int64_t> expect(recv[r].size(), kUntouched);
        for (int s = 0; s < p; ++s) {
            const size_t at = w ? static_cast<size_t>(rd[r][s]) / 8 : static_cast<size_t>(rd[r][s]);
            for (size_t i = 0; i < words(s, r); ++i) expect[at + i] = a2aValue(s, r, i);
        }
        EXPECT_EQ(recv[r], expect) << (w ? "alltoallw" : "alltoallv") << " rank " << r << " p=" << p
                                   << " h=" << nh.name << " in place=" << inPlace;
    }
    return t;
}
}  // namespace

TEST(TwoStageSim, AlltoallvAndAlltoallwEveryHierarchyOnePerPairOfGroups) {
    for (int p : {5, 8})
        for (const NamedHierarchy& nh : splitHierarchies(p))
            for (bool w : {false, true})
                for (bool inPlace : {false, true}) {
                    const uint32_t seed = 7u * p + (w ? 1 : 0);
                    const StageTraffic t = checkAlltoallv(p, nh, inPlace, w, seed, 0);
                    EXPECT_EQ(t.sizeCrossing, 0u) << nh.name;
                    // Every ordered pair of groups with bytes between them: exactly one message.
                    CollCall probe = baseCall(HIERAGG_ALLTOALLV, 0, p, nh.h.get());
                    const int level = recipes::aggregationLevel(probe);
                    std::set<std::pair<int, int>> pairs;
                    for (int s = 0; s < p; ++s)
                        for (int d = 0; d < p; ++d) {
                            const int gs = nh.h->groupOf(level, s), gd = nh.h->groupOf(level, d);
                            if (gs != gd && a2aWords(s, d, inPlace, seed) > 0) pairs.insert({gs, gd});
                        }
                    EXPECT_EQ(t.dataPairs, pairs) << nh.name;
                    EXPECT_EQ(t.dataCrossing, pairs.size()) << nh.name << " w=" << w << " in place=" << inPlace;
                }
}

TEST(TwoStageSim, AlltoallvTemporariesStayUnderTheLimit) {
    const int p = 8;
    for (const NamedHierarchy& nh : splitHierarchies(p)) {
        CollCall probe = baseCall(HIERAGG_ALLTOALLV, 0, p, nh.h.get());
        probe.maxTempBytes = 2048;
        const size_t limit = recipes::leaderBlockLimit(probe);
        ASSERT_GT(limit, 0u);
        ASSERT_LT(limit, 48u) << "some 48-byte blocks must go direct";
        const StageTraffic t = checkAlltoallv(p, nh, false, false, 99u, probe.maxTempBytes);
        EXPECT_LE(t.maxTemp, probe.maxTempBytes) << nh.name;
    }
}

TEST(TwoStageSim, AutoTakesTheLeadersOnlyWhereAGroupCombinesBlocks) {
    const int p = 8;
    auto v4 = std::make_shared<hier::Hierarchy>(virtualNodes(p, 4));
    auto v1 = std::make_shared<hier::Hierarchy>(virtualNodes(p, 1));
    auto rr2 = std::make_shared<hier::Hierarchy>(roundRobin(p, 2));
    for (hieragg_coll_kind k : {HIERAGG_GATHERV, HIERAGG_SCATTERV, HIERAGG_ALLTOALLV, HIERAGG_ALLTOALLW}) {
        CollCall c = baseCall(k, 0, p, v4.get());
        EXPECT_TRUE(recipes::twoStage(c)) << hier::collectiveName(k);
        c.hierarchy = rr2.get();
        EXPECT_TRUE(recipes::twoStage(c)) << hier::collectiveName(k);
        c.hierarchy = v1.get();  // groups of one: nothing to combine
        EXPECT_FALSE(recipes::twoStage(c)) << hier::collectiveName(k);
        c.hierarchy = nullptr;
        EXPECT_FALSE(recipes::twoStage(c)) << hier::collectiveName(k);
        c.hierarchy = v4.get();
        c.inter = true;
        c.remoteSize = 3;
        EXPECT_FALSE(recipes::twoStage(c)) << hier::collectiveName(k);
        c.inter = false;
        c.algorithm = hier::algorithmValue(*hier::algorithmsOf(k).front());  // the flat row, forced
        EXPECT_FALSE(recipes::twoStage(c)) << hier::collectiveName(k);
    }
    // Two groups of 4, the root's group talks to the root directly: the other group combines.
    CollCall g = baseCall(HIERAGG_GATHERV, 0, 2, nullptr);
    auto pairs = std::make_shared<hier::Hierarchy>(virtualNodes(2, 1));
    g.hierarchy = pairs.get();
    EXPECT_FALSE(recipes::twoStage(g));
    // The model's break-even: a network start-up against two intra-node passes per byte.
    CollCall m = baseCall(HIERAGG_GATHERV, 0, p, v4.get());
    hier::CostParams slowNet = hier::CostParams::defaults();
    slowNet.link[hier::kLinkNetwork].alpha_us = 50;
    slowNet.link[hier::kLinkNetwork].theta_us = 0;
    slowNet.link[hier::kLinkNode].beta_us_per_byte = 1.0 / 5000;
    m.costs = &slowNet;
    EXPECT_EQ(recipes::leaderBlockLimit(m), 125000u);
    m.args.kind = HIERAGG_ALLTOALLV;
    EXPECT_EQ(recipes::leaderBlockLimit(m), 41666u);
}
