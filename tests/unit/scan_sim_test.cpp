#include <gtest/gtest.h>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

struct ScanCase {
    bool exclusive = false;
    size_t count = 8;
    size_t segmentBytes = 1 << 16;
    bool inPlace = false;
    int algorithm = 0;  // coll_hieragg_(ex)scan_algorithm value; 0 = the model's choice
};

void checkScan(int p, sim::SimOp& op, const ScanCase& k) {
    const std::vector<int64_t> untouched(k.count, -7);
    std::vector<std::vector<int64_t>> in(p), out(p);
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, k.count);
        out[r] = k.inPlace ? in[r] : untouched;
    }
    sim::SimNetwork net(p);
    std::vector<CollCall> calls;
    hier::Hierarchy h = virtualNodes(p, 2);  // scan ignores the decomposition: same result
    for (int r = 0; r < p; ++r) {
        CollCall c = reductionCall(k.exclusive ? HIERAGG_EXSCAN : HIERAGG_SCAN, r, p, &h, op, k.count, k.segmentBytes,
                                   k.algorithm);
        c.args.sbuf = k.inPlace ? nullptr : in[r].data();
        c.args.in_place = k.inPlace;
        c.args.rbuf = out[r].data();
        calls.push_back(c);
    }
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error << " p=" << p;
    for (int r = 0; r < p; ++r) {
        if (k.exclusive && r == 0) {
            // Undefined by MPI: left exactly as it was.
            ASSERT_EQ(out[0], k.inPlace ? in[0] : untouched);
            continue;
        }
        ASSERT_EQ(out[r], rankOrderProduct(op, in, 0, k.exclusive ? r : r + 1)) << "p=" << p << " rank " << r;
    }
    if (k.algorithm && p > 1 && k.count > 0) {
        // The linear row: one message per pulse from each rank to its right neighbour, none elsewhere.
        // (Pulses of segmentBytes of int64 elements for the sum; the matrix product's element
        // is larger, so there only the pattern is checked.)
        const size_t perPulse = std::max<size_t>(1, k.segmentBytes / sizeof(int64_t));
        const uint64_t pulses = op.commutative ? (k.count + perPulse - 1) / perPulse : net.traffic(0, 1).messages;
        ASSERT_GT(pulses, 0u);
        for (int src = 0; src < p; ++src)
            for (int dst = 0; dst < p; ++dst)
                ASSERT_EQ(net.traffic(src, dst).messages, dst == src + 1 ? pulses : 0u)
                    << "p=" << p << " " << src << "->" << dst;
    }
}

int linearValue(bool exclusive) {
    return hier::algorithmValue(*hier::algorithmByName(exclusive ? HIERAGG_EXSCAN : HIERAGG_SCAN, "linear"));
}

}  // namespace

TEST(ScanSim, InclusiveSumAndRankOrder) {
    for (int p = 1; p <= 9; ++p) {
        checkScan(p, sumOp(), {});
        checkScan(p, matmulOp(), {});
    }
}

TEST(ScanSim, ExclusiveSumAndRankOrder) {
    for (int p = 1; p <= 9; ++p) {
        checkScan(p, sumOp(), {true});
        checkScan(p, matmulOp(), {true});
    }
}

TEST(ScanSim, InPlace) {
    for (int p : {1, 2, 3, 5, 8, 9})
        for (bool ex : {false, true}) {
            checkScan(p, matmulOp(), {ex, 8, 1 << 16, true});
            checkScan(p, sumOp(), {ex, 5, 1 << 16, true});
        }
}

TEST(ScanSim, ZeroCountAndPulses) {
    for (int p : {1, 4, 7})
        for (bool ex : {false, true}) {
            checkScan(p, sumOp(), {ex, 0});
            checkScan(p, sumOp(), {ex, 29, 32});
            checkScan(p, matmulOp(), {ex, 36, 32});
            checkScan(p, matmulOp(), {ex, 36, 32, true});
        }
}

TEST(ScanSim, ScanAndExscanInFlightTogether) {
    const int p = 6;
    std::vector<std::vector<int64_t>> in(p), inc(p, std::vector<int64_t>(8)), exc(p, std::vector<int64_t>(8, 0));
    for (int r = 0; r < p; ++r) in[r] = rankInput(r, 8);
    sim::SimNetwork net(p);
    std::vector<std::vector<CollCall>> calls(p);
    for (int r = 0; r < p; ++r) {
        CollCall s = reductionCall(HIERAGG_SCAN, r, p, nullptr, matmulOp(), 8, 32);
        s.args.sbuf = in[r].data(), s.args.rbuf = inc[r].data();
        CollCall e = reductionCall(HIERAGG_EXSCAN, r, p, nullptr, matmulOp(), 8, 32);
        e.args.sbuf = in[r].data(), e.args.rbuf = exc[r].data();
        calls[r] = {s, e};
    }
    ASSERT_TRUE(sim::run(net, calls, recipeBuilder()).ok);
    for (int r = 0; r < p; ++r) {
        EXPECT_EQ(inc[r], rankOrderProduct(matmulOp(), in, 0, r + 1));
        if (r) {
            EXPECT_EQ(exc[r], rankOrderProduct(matmulOp(), in, 0, r));
        }
    }
}

// The rank chain (LinearScan), forced: rank order (non-commutative), commutative, in place, pulses.
TEST(ScanSim, LinearChainForced) {
    for (bool ex : {false, true}) {
        const int v = linearValue(ex);
        for (int p = 1; p <= 9; ++p) {
            checkScan(p, sumOp(), {ex, 8, 1 << 16, false, v});
            checkScan(p, matmulOp(), {ex, 8, 1 << 16, false, v});
        }
        for (int p : {2, 3, 5, 8}) {
            checkScan(p, matmulOp(), {ex, 8, 1 << 16, true, v});
            checkScan(p, sumOp(), {ex, 0, 1 << 16, false, v});
            checkScan(p, sumOp(), {ex, 29, 32, false, v});   // 8 pulses of 4 elements (the last 1)
            checkScan(p, matmulOp(), {ex, 36, 32, true, v});
            // Commutative: the inclusive chain receives into out unless in place.
            checkScan(p, sumOp(), {ex, 8, 1 << 16, true, v});
            checkScan(p, sumOp(), {ex, 36, 32, true, v});
        }
    }
}

// Per rank, the linear chain (what the model runs on a crowded node) against Open MPI 4.1's
// scan, coll/basic's ompi_coll_base_scan_intra_linear (tuned's default stack has no scan of
// its own): rank 0 copies its input into rbuf and sends it; rank r > 0 copies its input into
// rbuf (unless in place), receives the prefix into a temporary the vector's size, reduces it
// in, and sends on (all but the last). The chain does exactly that with a non-commutative op
// or in place, and with a commutative op and separate buffers neither the copy nor the
// temporary (the prefix lands in rbuf, the input is reduced into it): never more of any.
TEST(ScanSim, LinearChainDoesNoMoreThanOpenMpisLinearScan) {
    const int v = linearValue(false);
    for (int p : {2, 4, 8})
        for (sim::SimOp* op : {&sumOp(), &matmulOp()})
            for (bool inPlace : {false, true})
                for (size_t count : {size_t{8}, size_t{8192}}) {  // 64 B and 64 KiB of int64: one pulse
                    sim::SimNetwork net(p);
                    for (int r = 0; r < p; ++r) {
                        std::vector<int64_t> in(count, 1), out(count, 0);
                        CollCall c = reductionCall(HIERAGG_SCAN, r, p, nullptr, *op, count, 1 << 16, v);
                        setBuffers(c, in, out, inPlace);
                        describeTypes(c, net.transport(r));
                        const Schedule s = recipes::buildSchedule(c);
                        size_t copies = 0, sends = 0, recvs = 0, reduces = 0;
                        for (const Step& st : s.steps) {
                            copies += st.kind == StepKind::Copy;
                            sends += st.kind == StepKind::Send;
                            recvs += st.kind == StepKind::Recv;
                            reduces += st.kind == StepKind::Reduce;
                        }
                        const size_t bytes = count * sizeof(int64_t);
                        const size_t basicCopies = inPlace ? 0 : 1, basicTemp = r > 0 ? bytes : 0;
                        const bool skips = r > 0 && op->commutative && !inPlace;
                        SCOPED_TRACE("p=" + std::to_string(p) + " rank " + std::to_string(r) +
                                     (op->commutative ? " commutative" : " non-commutative") +
                                     (inPlace ? " in place" : "") + " count " + std::to_string(count));
                        EXPECT_EQ(sends, r + 1 < p ? 1u : 0u);
                        EXPECT_EQ(recvs, r > 0 ? 1u : 0u);
                        EXPECT_EQ(reduces, r > 0 ? 1u : 0u);
                        EXPECT_EQ(copies, skips ? 0u : basicCopies);
                        EXPECT_EQ(s.tempBytes(), skips ? 0u : basicTemp);
                    }
                }
}
