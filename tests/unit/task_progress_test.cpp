// The executor's cost per progress call is bounded however many messages a
// schedule posts (defect 6: a 2.46 GB bcast posted ~37500 receives and every
// progress call tested all of them), and no posted message is left untested.
#include <gtest/gtest.h>

#include <set>

#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/Task.hpp"

using namespace hieragg;

namespace {

// Receives complete only when the test says so; counts test() calls.
class ScriptedTransport final : public Transport {
public:
    std::set<intptr_t> completed;
    size_t tests = 0;
    intptr_t nextReq = 1;
    int isend(void*, bool, const void*, size_t, void*, int, int, void** req) override {
        *req = reinterpret_cast<void*>(nextReq++);
        return 0;
    }
    int irecv(void*, bool, void*, size_t, void*, int, int, void** req) override {
        *req = reinterpret_cast<void*>(nextReq++);
        return 0;
    }
    int test(void* req, bool& done) override {
        ++tests;
        done = completed.count(reinterpret_cast<intptr_t>(req)) != 0;
        return 0;
    }
    void abandon(void*) override {}
    int reduce(void*, const void*, void*, size_t, void*) override { return 0; }
    int copy(const void*, size_t, void*, void*, size_t, void*) override { return 0; }
    hieragg_dtype_info typeInfo(void*) override { return {1, 0, 1, 0, 1}; }
    void* packedType() override { return nullptr; }
};

}  // namespace

TEST(TaskProgress, TestsABoundedWindowPerCall) {
    const int n = 10000;
    ScheduleBuilder b("many-receives");
    for (int i = 0; i < n; ++i) b.recv(1, {kRecvBuf, 0}, {kPackedType, 0}, {}, static_cast<uint32_t>(i % 256));
    auto sched = std::make_shared<const Schedule>(b.finish());
    ScriptedTransport tr;
    TaskBindings bind;
    bind.types = {nullptr, nullptr, nullptr};
    char buf[1];
    bind.rbuf = buf;
    Task t(sched, tr, bind);
    ASSERT_EQ(t.start(), 0);
    tr.tests = 0;
    EXPECT_FALSE(t.progress());
    EXPECT_LE(tr.tests, 128u) << "one progress call tested " << tr.tests << " of " << n << " posted receives";

    // A message deep in the list completes out of order: a bounded number of calls notices it.
    tr.completed.insert(n - 7);  // request ids are 1..n in posting order
    size_t calls = 0;
    while (t.completedSteps() == 0 && calls < 1000) {
        t.progress();
        ++calls;
    }
    EXPECT_EQ(t.completedSteps(), 1u);
    EXPECT_LE(calls, static_cast<size_t>(n / 64 + 2));

    // Everything completes: the task finishes.
    for (int i = 1; i <= n; ++i) tr.completed.insert(i);
    for (calls = 0; !t.progress() && calls < 10000; ++calls) {}
    EXPECT_TRUE(t.done());
    EXPECT_EQ(t.status(), 0);
    EXPECT_EQ(t.completedSteps(), static_cast<size_t>(n));
}
