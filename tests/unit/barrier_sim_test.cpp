#include <gtest/gtest.h>

#include <memory>

#include "ReductionFixture.hpp"
#include "hieragg/Task.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

// Starts every rank's barrier except `late`'s, progresses until nothing moves and
// checks nobody got out; then starts `late` and checks everybody finishes.
void checkNobodyLeavesEarly(int p, const hier::Hierarchy* h, int late, const std::string& what) {
    sim::SimNetwork net(p);
    sim::SimComm comm{7};
    std::vector<std::unique_ptr<Task>> tasks;
    for (int r = 0; r < p; ++r) {
        CollCall c = baseCall(HIERAGG_BARRIER, r, p, h);
        describeTypes(c, net.transport(r));
        auto s = std::make_shared<Schedule>(recipes::buildSchedule(c));
        tasks.push_back(std::make_unique<Task>(s, net.transport(r), bindCall(c, net.transport(r), &comm, -1, -(1 << 20))));
    }
    for (int r = 0; r < p; ++r) {
        if (r != late) {
            ASSERT_EQ(tasks[r]->start(), 0);
        }
    }
    for (int round = 0; round < 4 * p + 8; ++round)
        for (int r = 0; r < p; ++r)
            if (r != late) tasks[r]->progress();
    for (int r = 0; r < p && p > 1; ++r) {
        if (r != late) {
            ASSERT_FALSE(tasks[r]->done()) << what << ": rank " << r << " left before " << late << " entered";
        }
    }
    ASSERT_EQ(tasks[late]->start(), 0);
    for (int round = 0; round < 4 * p + 8; ++round)
        for (auto& t : tasks) t->progress();
    for (int r = 0; r < p; ++r) ASSERT_TRUE(tasks[r]->done()) << what << ": rank " << r << " never left";
    EXPECT_EQ(net.unmatchedMessages(), 0u);
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d) EXPECT_EQ(net.traffic(s, d).bytes, 0u) << "barrier messages carry no data";
}

}  // namespace

TEST(BarrierSim, NobodyLeavesBeforeTheLastEntersEveryDecomposition) {
    for (int p = 1; p <= 9; ++p)
        for (auto& d : reductionHierarchies(p))
            for (int late = 0; late < p; ++late) checkNobodyLeavesEarly(p, &d.h, late, d.name + " p=" + std::to_string(p));
}

TEST(BarrierSim, HierarchicalUsesOneFanInMessagePerNonLeaderAndReleases) {
    // 3 nodes x 3 ranks: 6 fan-in + 6 release inside nodes, dissemination over 3 leaders
    // (2 rounds x 3 messages), so only leaders talk across nodes.
    const int p = 9;
    hier::Hierarchy h = virtualNodes(p, 3);
    sim::SimNetwork net(p);
    std::vector<CollCall> calls;
    for (int r = 0; r < p; ++r) calls.push_back(baseCall(HIERAGG_BARRIER, r, p, &h));
    auto res = sim::runOne(net, calls, recipeBuilder());
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_EQ(net.totalMessages(), 6u + 6u + 6u);
    for (int s = 0; s < p; ++s)
        for (int d = 0; d < p; ++d)
            if (s / 3 != d / 3 && net.traffic(s, d).messages) {
                EXPECT_EQ(s % 3, 0) << s << "->" << d;
                EXPECT_EQ(d % 3, 0) << s << "->" << d;
            }
}

TEST(BarrierSim, ManyBarriersInFlight) {
    for (int p : {1, 4, 7}) {
        hier::Hierarchy h = virtualNodes(p, 2);
        sim::SimNetwork net(p);
        std::vector<std::vector<CollCall>> calls(p);
        for (int r = 0; r < p; ++r)
            for (int i = 0; i < 5; ++i) calls[r].push_back(baseCall(HIERAGG_BARRIER, r, p, i % 2 ? &h : nullptr));
        auto res = sim::run(net, calls, recipeBuilder());
        ASSERT_TRUE(res.ok) << res.error;
    }
}
