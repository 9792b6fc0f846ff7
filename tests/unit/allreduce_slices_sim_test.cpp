// The allreduce compositions that cut the vector into slices (ring, rabenseifner,
// recursive_doubling, multileader_ring, multileader_rabenseifner) on the simulator:
// results against the closed-form sum, message counts (in total and between nodes)
// from the algorithms' definitions, bounded scratch, bitwise reproducibility, and
// the model's choice between them and the trees.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

const char* const kRows[] = {"ring", "rabenseifner", "recursive_doubling", "multileader_ring",
                             "multileader_rabenseifner"};

int valueOf(const char* name) { return hier::algorithmValue(*hier::algorithmByName(HIERAGG_ALLREDUCE, name)); }
bool multiLeader(const std::string& name) { return name.rfind("multileader", 0) == 0; }

int floorPow2(int n) {
    int p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

// Sum over ranks of rankInput(r, count), element by element, by a direct loop.
std::vector<int64_t> closedFormSum(int p, size_t count) {
    std::vector<int64_t> s(count, 0);
    for (int r = 0; r < p; ++r) {
        const std::vector<int64_t> v = rankInput(r, count);
        for (size_t i = 0; i < count; ++i) s[i] += v[i];
    }
    return s;
}

struct RowRun {
    bool ok = false;
    std::string algorithm;
    uint64_t messages = 0, crossMessages = 0, crossBytes = 0;
};

// Runs allreduce `row` of `count` int64 on p ranks over h; checks every rank's result.
RowRun runRow(const char* row, int p, const hier::Hierarchy& h, const std::string& layout, size_t count,
           size_t segmentBytes, bool inPlace) {
    RowRun out;
    std::vector<std::vector<int64_t>> in(p), res(p);
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, count);
        res[r] = inPlace ? in[r] : std::vector<int64_t>(count, -7);
    }
    sim::SimNetwork net(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        CollCall c = reductionCall(HIERAGG_ALLREDUCE, r, p, &h, sumOp(), count, segmentBytes, valueOf(row));
        setBuffers(c, in[r], res[r], inPlace);
        calls.push_back(c);
    }
    const std::string what = std::string(row) + " p=" + std::to_string(p) + " " + layout + " count=" +
                             std::to_string(count) + " seg=" + std::to_string(segmentBytes) +
                             (inPlace ? " in place" : "");
    auto r = sim::runOne(net, calls, recipeBuilder());
    EXPECT_TRUE(r.ok) << what << ": " << r.error;
    EXPECT_EQ(net.unmatchedMessages(), 0u) << what;
    if (!r.ok) return out;
    const std::vector<int64_t> expect = closedFormSum(p, count);
    for (int q = 0; q < p; ++q) EXPECT_EQ(res[q], expect) << what << " rank " << q << " " << r.algorithms[q];
    out.ok = true;
    out.algorithm = r.algorithms[0];
    out.messages = net.totalMessages();
    const int top = h.levels() - 1;
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
            if (h.groupOf(top, s) != h.groupOf(top, d)) {
                out.crossMessages += net.traffic(s, d).messages;
                out.crossBytes += net.traffic(s, d).bytes;
            }
    return out;
}

}  // namespace

TEST(AllreduceSlices, EveryRowSizesLayoutsInPlaceAndPulses) {
    for (const char* row : kRows)
        for (int p : {1, 2, 3, 5, 8, 9}) {
            std::vector<std::pair<std::string, hier::Hierarchy>> layouts = {
                {"flat", hier::Hierarchy::flat(p)},      {"virtual:1", virtualNodes(p, 1)},
                {"virtual:3", virtualNodes(p, 3)},       {"virtual:4", virtualNodes(p, 4)},
                {"roundrobin:2", roundRobin(p, 2)},      {"nested:2/4", nestedNodes(p, 2, 4)}};
            for (const auto& [name, h] : layouts) {
                if (multiLeader(row) && h.isTrivial()) continue;  // needs a decomposition: refused
                // count < p (empty blocks), one pulse, several pulses (segment of 2 or 4 elements).
                for (size_t count : {size_t{0}, size_t{1}, size_t{3}, size_t{37}})
                    for (size_t seg : {size_t{1} << 16, size_t{16}}) {
                        runRow(row, p, h, name, count, seg, false);
                        runRow(row, p, h, name, count, seg, true);
                        if (::testing::Test::HasFatalFailure()) return;
                    }
            }
        }
}

TEST(AllreduceSlices, MessageCountsFollowTheAlgorithms) {
    const size_t count = 64;  // 512 B, one pulse
    for (int p : {4, 6, 8, 9}) {
        const hier::Hierarchy flat = hier::Hierarchy::flat(p);
        const int p2 = floorPow2(p), r = p - p2, lg = static_cast<int>(std::log2(p2));
        // Ring: 2 (p - 1) steps, every rank sends once per step.
        EXPECT_EQ(runRow("ring", p, flat, "flat", count, 1 << 16, false).messages, 2u * (p - 1) * p);
        // Butterflies: the fold and unfold (r each), then per core member one message per round
        // (recursive doubling) or two (halving and doubling).
        EXPECT_EQ(runRow("recursive_doubling", p, flat, "flat", count, 1 << 16, false).messages,
                  static_cast<uint64_t>(2 * r + lg * p2));
        EXPECT_EQ(runRow("rabenseifner", p, flat, "flat", count, 1 << 16, false).messages,
                  static_cast<uint64_t>(2 * r + 2 * lg * p2));
    }
    // Multi-leader on G nodes of m ranks: inside, a ring reduce-scatter and allgather per node
    // (2 m (m - 1) messages); between nodes, only the slice allreduces: member j of every node
    // with its G - 1 peers, 2 (G - 1) messages each for the ring, 2 log2 G for Rabenseifner.
    for (auto [G, m] : {std::pair{2, 4}, std::pair{4, 2}, std::pair{3, 3}}) {
        const int p = G * m;
        const hier::Hierarchy h = virtualNodes(p, m);
        const std::string name = "virtual:" + std::to_string(m);
        const RowRun ring = runRow("multileader_ring", p, h, name, count, 1 << 16, false);
        EXPECT_EQ(ring.crossMessages, static_cast<uint64_t>(p * 2 * (G - 1))) << name;
        EXPECT_EQ(ring.messages - ring.crossMessages, static_cast<uint64_t>(G * 2 * m * (m - 1))) << name;
        // Every byte of the vector leaves a node 2 (G - 1)/G times (G * that in all), within rounding.
        EXPECT_NEAR(static_cast<double>(ring.crossBytes), 2.0 * (G - 1) * count * 8, 8.0 * p * 2 * G) << name;
        if ((G & (G - 1)) == 0) {
            const RowRun rab = runRow("multileader_rabenseifner", p, h, name, count, 1 << 16, false);
            EXPECT_EQ(rab.crossMessages, static_cast<uint64_t>(p * 2 * std::log2(G))) << name;
        }
    }
    // Uneven nodes (5 ranks as 3 + 2): two slices, the third member of the big node owns none.
    const hier::Hierarchy uneven = virtualNodes(5, 3);
    const RowRun u = runRow("multileader_ring", 5, uneven, "virtual:3", count, 1 << 16, false);
    EXPECT_EQ(u.crossMessages, 2u * 2u * 2u);  // 2 columns x 2 ranks x 2 messages (ring of 2: RS + AG)
}

TEST(AllreduceSlices, ScratchStaysBoundedForHugeCounts) {
    const int p = 9;
    const size_t seg = 8192;
    for (const char* row : kRows) {
        const hier::Hierarchy h = nestedNodes(p, 2, 4);  // groups of 4, 4 and 1
        sim::SimNetwork net(p);
        for (int r = 0; r < p; ++r)
            for (size_t count : {size_t{1} << 12, size_t{1} << 25}) {
                CollCall c = reductionCall(HIERAGG_ALLREDUCE, r, p, &h, sumOp(), count, seg, valueOf(row));
                describeTypes(c, net.transport(r));
                const Schedule s = recipes::buildSchedule(c);
                ASSERT_EQ(s.algorithm.find("bcast"), std::string::npos) << row << ": " << s.algorithm;
                // Window of kPulseWindow (8) scratch slots: a block of a segment (ring, multi-leader)
                // or, for the butterflies, the fold's whole pulse of p2 (Rabenseifner) or 1 segment.
                const size_t window = 8;
                const size_t bound = std::string(row) == "rabenseifner" ? window * floorPow2(p) * seg : window * seg;
                EXPECT_LE(s.tempBytes(), bound) << row << " rank " << r << " count " << count;
                // The runtime's channel space per call (kMaxChannels in TagAllocation.hpp).
                EXPECT_LE(s.channels, 4096u) << row << " rank " << r << " count " << count;
            }
    }
}

namespace {
// Doubles whose sum depends on association, with `others` unrelated allreduces in flight
// ahead of it so messages arrive in another order.
std::vector<std::vector<double>> doubles(const char* row, int p, const hier::Hierarchy& h, int others) {
    const size_t count = 40;
    std::vector<std::vector<double>> in(p, std::vector<double>(count)), out(p, std::vector<double>(count));
    std::vector<std::vector<int64_t>> junkIn(p, std::vector<int64_t>(16, 1)),
        junkOut(p, std::vector<int64_t>(16 * (others + 1)));
    for (int r = 0; r < p; ++r)
        for (size_t i = 0; i < count; ++i) in[r][i] = (r % 2 ? 1e16 : 1.0) * (1.0 + 0.1 * r) / (1 + i) * (r % 3 ? -1 : 1);
    static sim::SimOp dsum{[](const void* s, void* d, size_t n, const sim::SimType&) {
                               for (size_t i = 0; i < n; ++i)
                                   static_cast<double*>(d)[i] += static_cast<const double*>(s)[i];
                           },
                           true};
    sim::SimNetwork net(p);
    std::vector<std::vector<CollCall>> calls(p);
    for (int r = 0; r < p; ++r) {
        for (int i = 0; i < others; ++i) {
            CollCall j = reductionCall(HIERAGG_ALLREDUCE, r, p, &h, sumOp(), 16, 32);
            j.args.sbuf = junkIn[r].data();
            j.args.rbuf = junkOut[r].data() + 16 * i;
            calls[r].push_back(j);
        }
        CollCall c = baseCall(HIERAGG_ALLREDUCE, r, p, &h);
        c.args.stype = c.args.rtype = &doubleType();
        c.args.op = &dsum;
        c.args.op_commutative = 1;
        c.args.rcount = c.args.scount = count;
        c.args.sbuf = in[r].data();
        c.args.rbuf = out[r].data();
        c.segmentBytes = 48;
        c.algorithm = valueOf(row);
        calls[r].push_back(c);
    }
    auto res = sim::run(net, calls, recipeBuilder());
    EXPECT_TRUE(res.ok) << res.error;
    return out;
}
}  // namespace

TEST(AllreduceSlices, DoubleSumIsBitwiseIdenticalOnEveryRankAndRun) {
    for (const char* row : kRows)
        for (int p : {5, 8}) {
            const hier::Hierarchy h = virtualNodes(p, 3);
            auto a = doubles(row, p, h, 0);
            auto b = doubles(row, p, h, 3);
            for (int r = 0; r < p; ++r) {
                ASSERT_EQ(0, std::memcmp(a[r].data(), b[r].data(), a[r].size() * sizeof(double))) << row << " " << r;
                ASSERT_EQ(0, std::memcmp(a[0].data(), a[r].data(), a[r].size() * sizeof(double))) << row << " " << r;
            }
        }
}

TEST(AllreduceSlices, ModelPicksSlicesForLongVectorsAndTreesForOrder) {
    const int p = 8;
    const hier::Hierarchy h = virtualNodes(p, 4);
    const hier::CostParams params = hier::CostParams::defaults();
    auto planFor = [&](size_t count, sim::SimOp& op) {
        sim::SimNetwork net(p);
        CollCall c = reductionCall(HIERAGG_ALLREDUCE, 0, p, &h, op, count, 1 << 16);
        describeTypes(c, net.transport(0));
        return hier::choosePlan(c, params);
    };
    // 4 MiB across two nodes: every byte through one root costs ~2x the slices' 2(G-1)/G.
    const hier::Plan big = planFor(size_t{1} << 19, sumOp());
    ASSERT_TRUE(big.stages[0].algo);
    EXPECT_TRUE(multiLeader(big.stages[0].algo->name)) << big.describe();
    // Non-commutative: never a slice composition (they combine out of rank order).
    const hier::Plan ordered = planFor(size_t{1} << 19, matmulOp());
    for (const auto& s : ordered.stages)
        if (s.algo) EXPECT_EQ(s.algo->needs & hier::kNeedsCommutativeOp, 0u) << ordered.describe();
    // On one node, flat: a long vector goes ring or Rabenseifner, a short one takes log2 p rounds.
    const hier::Hierarchy one = hier::Hierarchy::flat(p);
    sim::SimNetwork net(p);
    CollCall c = reductionCall(HIERAGG_ALLREDUCE, 0, p, &one, sumOp(), size_t{1} << 19, 1 << 16);
    describeTypes(c, net.transport(0));
    const hier::Plan flatBig = hier::choosePlan(c, params);
    ASSERT_TRUE(flatBig.stages[0].algo);
    EXPECT_TRUE(std::string(flatBig.stages[0].algo->name) == "ring" ||
                std::string(flatBig.stages[0].algo->name) == "rabenseifner")
        << flatBig.describe();
}
