// The wire traffic of every row that cuts its message into segments or pulses, pinned:
// each collective with such rows x every forced row (and auto) x P in {3,4,5,8} x message
// sizes from 8 B to 16 MiB runs on the simulator, and the messages and bytes every rank
// sent to every peer must equal tests/data/pulsed_rows_wire.txt, recorded before these
// rows moved onto the fragment template (Schedule.hpp, FragmentPipeline). Moving a row
// must not change what it puts on the wire; a change that does is re-recorded on purpose
// (HIERAGG_PULSED_GRID_RECORD=1) and says why in its commit.
//
// HIERAGG_PULSED_GRID_OUT=FILE also writes each rank's schedule size (steps held, steps
// run) next to its traffic, to diff a conversion's schedules before and after.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

struct Layout {
    int p;
    std::string name;
    hier::Hierarchy h;
};

std::vector<Layout> layouts() {
    std::vector<Layout> v;
    for (int p : {3, 4, 5, 8}) v.push_back({p, "virtual:2", virtualNodes(p, 2)});
    v.push_back({8, "nested:2/4", nestedNodes(8, 2, 4)});
    return v;
}

const hieragg_coll_kind kPulsedCollectives[] = {HIERAGG_BCAST,          HIERAGG_REDUCE, HIERAGG_ALLREDUCE,
                                                HIERAGG_REDUCE_SCATTER, HIERAGG_REDUCE_SCATTER_BLOCK,
                                                HIERAGG_SCAN,           HIERAGG_EXSCAN};
const size_t kBytes[] = {8, 4096, 200000, 16u << 20};

// One cell: `wire` lists per rank the peers it sent to with messages/bytes; `sizes` adds
// each rank's steps held / steps run.
struct Cell {
    std::string wire, sizes;
};

Cell runCell(hieragg_coll_kind kind, int forced, const Layout& l, size_t bytes) {
    const int p = l.p;
    // reduce_scatter: `bytes` is the whole vector, cut into p blocks (the last ones may be empty).
    const size_t total = bytes / 8;
    const bool rs = kind == HIERAGG_REDUCE_SCATTER || kind == HIERAGG_REDUCE_SCATTER_BLOCK;
    std::vector<int> rcounts(p, 0);
    for (int j = 0; j < p; ++j) rcounts[j] = static_cast<int>(total / p + (static_cast<size_t>(j) < total % p));
    if (kind == HIERAGG_REDUCE_SCATTER_BLOCK) rcounts.assign(p, static_cast<int>(total / p));
    const size_t count = rs ? static_cast<size_t>(rcounts[0]) : total;
    const size_t inCount = rs ? std::accumulate(rcounts.begin(), rcounts.end(), size_t{0}) : total;
    std::vector<std::vector<int64_t>> in(p), out(p);
    sim::SimNetwork net(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) {
        in[r] = rankInput(r, inCount);
        out[r].assign(std::max(inCount, size_t{1}), 0);
        CollCall c = reductionCall(kind, r, p, &l.h, sumOp(), count, 1 << 16, forced);
        if (kind == HIERAGG_REDUCE_SCATTER) c.args.rcounts = rcounts.data(), c.args.rcount = c.args.scount = 0;
        c.args.root = p - 1;
        if (kind == HIERAGG_BCAST && r == p - 1) out[r] = in[r];
        c.args.sbuf = in[r].data();
        c.args.rbuf = out[r].data();
        calls.push_back(c);
    }
    std::vector<std::pair<size_t, size_t>> steps(p);
    auto res = sim::runOne(net, calls, [&](const CollCall& c) {
        Schedule s = recipes::buildSchedule(c);
        steps[c.rank] = {s.steps.size(), s.executedSteps()};
        return s;
    });
    std::ostringstream head;
    head << hier::collectiveName(kind) << " row=" << (forced ? hier::algorithmByValue(kind, forced)->name : "auto")
         << " P=" << p << " " << l.name << " bytes=" << bytes << " ran=" << (res.ok ? res.algorithms[0] : res.error)
         << "\n";
    std::ostringstream wire, sizes;
    wire << head.str();
    sizes << head.str();
    for (int r = 0; r < p; ++r) {
        std::ostringstream sent;
        sent << "  r" << r << ":";
        for (int j = 0; j < p; ++j) {
            const sim::TrafficCounter& t = net.traffic(r, j);
            if (t.messages) sent << " " << j << "=" << t.messages << "/" << t.bytes;
        }
        wire << sent.str() << "\n";
        sizes << sent.str() << " | steps " << steps[r].first << " runs " << steps[r].second << "\n";
    }
    return {wire.str(), sizes.str()};
}

std::string readFile(const std::string& path) {
    std::ifstream f(path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

TEST(PulsedRowsGrid, WireTrafficAsRecorded) {
    std::string wire, sizes;
    for (hieragg_coll_kind kind : kPulsedCollectives) {
        const int rows = static_cast<int>(hier::algorithmsOf(kind).size());
        for (int forced = 0; forced <= rows; ++forced) {
            const char* name = forced ? hier::algorithmByValue(kind, forced)->name : "auto";
            if (std::string(name).find("ofi") != std::string::npos) continue;  // needs a fabric
            for (const Layout& l : layouts())
                for (size_t bytes : kBytes) {
                    const Cell c = runCell(kind, forced, l, bytes);
                    wire += c.wire;
                    sizes += c.sizes;
                }
        }
    }
    const std::string path = std::string(HIERAGG_TEST_DATA_DIR) + "/pulsed_rows_wire.txt";
    if (const char* out = std::getenv("HIERAGG_PULSED_GRID_OUT")) std::ofstream(out) << sizes;
    if (std::getenv("HIERAGG_PULSED_GRID_RECORD")) {
        std::ofstream(path) << wire;
        GTEST_SKIP() << "recorded " << path;
    }
    const std::string expect = readFile(path);
    ASSERT_FALSE(expect.empty()) << path << " is missing";
    // Compare cell by cell, so a failure names the first cell that changed.
    std::istringstream a(wire), b(expect);
    std::string la, lb, cell;
    while (true) {
        const bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
        if (!ha && !hb) break;
        if (!la.empty() && la[0] != ' ') cell = la;
        ASSERT_EQ(la, lb) << "in cell " << cell;
    }
}
