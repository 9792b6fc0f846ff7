// A Task reused for another call (Task::reset, what the runtime's pool does) runs it as a
// fresh Task would: every rank keeps one Task for a sequence of different collectives,
// counts, roots and temporary sizes (arena and one-by-one), and every result matches a
// closed form.
#include <gtest/gtest.h>

#include <iterator>
#include <memory>

#include "ReductionFixture.hpp"
#include "hieragg/Task.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

struct CallSpec {
    hieragg_coll_kind kind;
    size_t count;
    int root;
};

int64_t input(int r, size_t i, int call) { return 1 + r * 3 + static_cast<int64_t>(i % 11) + call * 100; }

}  // namespace

TEST(TaskReuseSim, OneTaskPerRankRunsEveryCallAsAFreshOne) {
    const int p = 5;
    hier::Hierarchy h = virtualNodes(p, 2);
    sim::SimNetwork net(p);
    sim::SimComm comm{3};
    // 5000 int64 = 40 kB: temporaries past the arena; the others fit it.
    const CallSpec calls[] = {{HIERAGG_REDUCE, 3, 2},    {HIERAGG_BCAST, 7, 4},  {HIERAGG_ALLREDUCE, 5000, 0},
                              {HIERAGG_REDUCE, 1, 0},    {HIERAGG_ALLREDUCE, 3, 0}, {HIERAGG_BCAST, 5000, 1},
                              {HIERAGG_REDUCE, 5000, 3}, {HIERAGG_ALLREDUCE, 1, 0}};
    std::vector<std::unique_ptr<Task>> tasks(p);
    for (int n = 0; n < static_cast<int>(std::size(calls)); ++n) {
        const CallSpec& k = calls[n];
        const std::string what = "call " + std::to_string(n) + " (" + hieragg_coll_name(k.kind) + ")";
        std::vector<std::vector<int64_t>> in(p, std::vector<int64_t>(k.count)), out(p, std::vector<int64_t>(k.count, -1));
        for (int r = 0; r < p; ++r)
            for (size_t i = 0; i < k.count; ++i) in[r][i] = input(r, i, n);
        for (int r = 0; r < p; ++r) {
            CollCall c = reductionCall(k.kind, r, p, &h, sumOp(), k.count, 1 << 16);
            c.args.root = k.root;
            if (k.kind == HIERAGG_BCAST) {
                c.args.op = nullptr;
                if (r == k.root) out[r] = in[r];
                c.args.rbuf = out[r].data();
            } else {
                c.args.sbuf = in[r].data();
                c.args.rbuf = out[r].data();
            }
            describeTypes(c, net.transport(r));
            auto s = std::make_shared<const Schedule>(recipes::buildSchedule(c));
            // Each call its own tag block, as the runtime's call numbers give it.
            const int tagBase = -1 - n * 4096, localTagBase = tagBase - (1 << 24);
            if (!tasks[r]) {
                tasks[r] = std::make_unique<Task>(s, net.transport(r), bindCall(c, net.transport(r), &comm, tagBase, localTagBase));
            } else {
                ASSERT_TRUE(tasks[r]->done()) << what;
                tasks[r]->retire();
                tasks[r]->reset(s, net.transport(r));
                EXPECT_FALSE(tasks[r]->done()) << what << ": reset leaves the last call's end behind";
                EXPECT_EQ(tasks[r]->completedSteps(), 0u) << what;
                bindCallInto(c, net.transport(r), &comm, tagBase, localTagBase, tasks[r]->bindings());
            }
        }
        for (int r = 0; r < p; ++r) ASSERT_EQ(tasks[r]->start(), 0) << what;
        for (int round = 0; round < 10000; ++round) {
            bool all = true;
            for (auto& t : tasks) all &= t->progress();
            if (all) break;
        }
        for (int r = 0; r < p; ++r) {
            ASSERT_TRUE(tasks[r]->done()) << what << ": rank " << r;
            ASSERT_EQ(tasks[r]->status(), 0) << what << ": rank " << r;
        }
        EXPECT_EQ(net.unmatchedMessages(), 0u) << what;
        for (int r = 0; r < p; ++r) {
            const bool has = k.kind != HIERAGG_REDUCE || r == k.root;
            if (!has) continue;
            for (size_t i = 0; i < k.count; ++i) {
                int64_t exp = 0;
                if (k.kind == HIERAGG_BCAST)
                    exp = input(k.root, i, n);
                else
                    for (int q = 0; q < p; ++q) exp += input(q, i, n);
                ASSERT_EQ(out[r][i], exp) << what << ": rank " << r << " element " << i;
            }
        }
    }
}
