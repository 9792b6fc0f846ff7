// Every row whose segments or pulses run as fragment templates (Schedule.hpp,
// FragmentPipeline): bcast, reduce, allreduce, scan and exscan, each registry row forced,
// over a flat, a one-level and a two-level decomposition. The results equal closed forms
// of the inputs, computed here from the formulas that made them, at a size of several
// fragments with a short last one; and each rank's schedule holds as many steps at
// 16 MiB as at that size, while it runs more: the schedule is bounded by the template.
#include <gtest/gtest.h>

#include "SimFixture.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

constexpr size_t kSmallCount = 40000 + 3;       // 320 KiB of int64: 5 pulses of 64 KiB, the last short
constexpr size_t kHugeCount = (16u << 20) / 8;  // 16 MiB
constexpr int64_t kRankScale = 1000003;

// Rank r's element i, and the sum over ranks 0..p-1 of it (the closed form).
int64_t input(int r, size_t i) { return static_cast<int64_t>(i) + kRankScale * r; }
int64_t sumOfInputs(int p, size_t i) {
    return static_cast<int64_t>(p) * static_cast<int64_t>(i) + kRankScale * p * (p - 1) / 2;
}
// The sum over ranks 0..k-1 (a prefix: scan gives rank r the one of k = r + 1, exscan k = r).
int64_t sumOfFirst(int k, size_t i) { return sumOfInputs(k, i); }
// The broadcast root's element i.
int64_t rootValue(size_t i) { return 5 * static_cast<int64_t>(i) + 1; }

struct Layout {
    std::string name;
    hier::Hierarchy h;
};
std::vector<Layout> layouts() {
    return {{"flat:6", hier::Hierarchy::flat(6)}, {"virtual:2 x5", virtualNodes(5, 2)},
            {"nested:2/4 x8", nestedNodes(8, 2, 4)}};
}

CollCall callOf(hieragg_coll_kind kind, int r, const Layout& l, size_t count, int forced) {
    CollCall c = baseCall(kind, r, l.h.commSize(), &l.h);
    c.args.stype = c.args.rtype = &int64Type();
    c.args.op = &sumOp();
    c.args.op_commutative = 1;
    c.args.scount = c.args.rcount = count;
    c.args.root = l.h.commSize() - 1;
    c.segmentBytes = 1 << 16;
    c.algorithm = forced;
    return c;
}

// Steps each rank's schedule holds and runs for `count` elements (built, not run), and
// what it runs without the fragment size (the model may pick another radix or row).
struct Size {
    size_t held = 0, runs = 0;
    std::string algorithm;
};
std::vector<Size> sizes(hieragg_coll_kind kind, const Layout& l, size_t count, int forced) {
    sim::SimNetwork net(l.h.commSize());
    std::vector<Size> v;
    for (int r = 0; r < l.h.commSize(); ++r) {
        CollCall c = callOf(kind, r, l, count, forced);
        describeTypes(c, net.transport(r));
        const Schedule s = recipes::buildSchedule(c);
        const size_t frag = s.algorithm.find(",frag=");
        v.push_back({s.steps.size(), s.executedSteps(), s.algorithm.substr(0, frag)});
    }
    return v;
}

// `segmented`: the row cuts a 16 MiB message (reductions always pulse; bcast's chain rows).
void checkRow(hieragg_coll_kind kind, int forced, bool segmented) {
    const char* row = forced ? hier::algorithmByValue(kind, forced)->name : "auto";
    for (const Layout& l : layouts()) {
        const int p = l.h.commSize();
        const std::string what = std::string(hier::collectiveName(kind)) + " row=" + row + " " + l.name;
        std::vector<std::vector<int64_t>> in(p), out(p);
        sim::SimNetwork net(p);
        std::vector<CollCall> calls;
        for (int r = 0; r < p; ++r) {
            in[r].resize(kSmallCount);
            for (size_t i = 0; i < kSmallCount; ++i) in[r][i] = kind == HIERAGG_BCAST ? rootValue(i) : input(r, i);
            out[r].assign(kSmallCount, -7);
            if (kind == HIERAGG_BCAST && r == p - 1) out[r] = in[r];
            CollCall c = callOf(kind, r, l, kSmallCount, forced);
            c.args.sbuf = in[r].data();
            c.args.rbuf = out[r].data();
            calls.push_back(c);
        }
        const auto res = sim::runOne(net, calls, recipeBuilder());
        ASSERT_TRUE(res.ok) << what << ": " << res.error;
        for (int r = 0; r < p; ++r) {
            if (kind == HIERAGG_REDUCE && r != p - 1) continue;  // only the root receives
            if (kind == HIERAGG_EXSCAN && r == 0) continue;       // undefined on rank 0
            for (size_t i = 0; i < kSmallCount; ++i) {
                const int64_t expect = kind == HIERAGG_BCAST    ? rootValue(i)
                                       : kind == HIERAGG_SCAN   ? sumOfFirst(r + 1, i)
                                       : kind == HIERAGG_EXSCAN ? sumOfFirst(r, i)
                                                                : sumOfInputs(p, i);
                ASSERT_EQ(out[r][i], expect) << what << " rank " << r << " element " << i << " ran "
                                             << res.algorithms[r];
            }
        }
        const auto small = sizes(kind, l, kSmallCount, forced), huge = sizes(kind, l, kHugeCount, forced);
        bool pipelined = false, compared = false;
        for (int r = 0; r < p; ++r) {
            // A row refused here (a hierarchical row on a flat layout) falls back to auto, which
            // may take a slice composition: those still unroll (docs/recipes-reductions.md).
            bool slices = false;
            for (const char* u : {"ring-", "rabenseifner", "recursive-doubling", "multileader"})
                slices |= huge[r].algorithm.rfind(u, 0) == 0;
            if (slices && huge[r].algorithm == small[r].algorithm) continue;
            if (huge[r].algorithm != small[r].algorithm) {
                // Another tree or row for the larger message (auto, or a row's model): only a
                // forced row that keeps its shape compares.
                EXPECT_EQ(forced == 0 || std::string(row) == "type2", true) << what << " rank " << r << ": "
                    << small[r].algorithm << " became " << huge[r].algorithm;
                continue;
            }
            EXPECT_EQ(huge[r].held, small[r].held) << what << " rank " << r << ": the schedule grows with the message (" << huge[r].algorithm << ")";
            pipelined |= huge[r].runs > huge[r].held;
            compared = true;
        }
        if (segmented && compared) EXPECT_TRUE(pipelined) << what << ": no rank runs a template more than once at 16 MiB";
    }
}

void checkEveryRow(hieragg_coll_kind kind) {
    const int rows = static_cast<int>(hier::algorithmsOf(kind).size());
    for (int forced = 0; forced <= rows; ++forced) {
        const char* name = forced ? hier::algorithmByValue(kind, forced)->name : "auto";
        if (std::string(name).find("ofi") != std::string::npos) continue;  // needs a fabric (offload tests)
        const std::string n = name;
        checkRow(kind, forced, kind != HIERAGG_BCAST || n == "chain" || n == "hier_pipeline");
    }
}

}  // namespace

TEST(FragmentRows, BcastRowsAreBoundedAndExact) { checkEveryRow(HIERAGG_BCAST); }
TEST(FragmentRows, ReduceRowsAreBoundedAndExact) { checkEveryRow(HIERAGG_REDUCE); }
void checkNamedRows(hieragg_coll_kind kind, std::initializer_list<const char*> names) {
    const auto& rows = hier::algorithmsOf(kind);
    for (const std::string row : names) {
        int value = 0;
        for (size_t i = 0; i < rows.size(); ++i)
            if (rows[i]->name == row) value = static_cast<int>(i) + 1;
        ASSERT_NE(value, 0) << row << " is no " << hier::collectiveName(kind) << " row";
        checkRow(kind, value, true);
    }
}

TEST(FragmentRows, AllreduceTreeRowsAreBoundedAndExact) {
    // The slice rows (ring, rabenseifner, recursive doubling, multi-leader) still unroll their
    // pulses (docs/recipes-reductions.md): only the reduce + bcast rows are checked here.
    checkNamedRows(HIERAGG_ALLREDUCE, {"knomial", "flat", "kary", "chain", "hier_knomial", "type2", "hier_pipeline"});
}
TEST(FragmentRows, ScanRowsAreBoundedAndExact) {
    // The leader rows (leader_prefix, leader_chain) still unroll their pulses.
    checkNamedRows(HIERAGG_SCAN, {"recursive_doubling", "linear"});
    checkNamedRows(HIERAGG_EXSCAN, {"recursive_doubling", "linear"});
}
