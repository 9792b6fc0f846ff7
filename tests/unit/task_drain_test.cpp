// A failed Task completes only once the messages a cancel could not end have ended
// (Task::drain, docs/fault-tolerance.md): after a process failure under ULFM a send to a
// live peer or a matched receive keeps moving data after the cancel, and the call's
// buffers must outlive it. Nothing fires after the failure; messages the transport
// releases at once are not tested again.
#include <gtest/gtest.h>

#include <set>

#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/Task.hpp"

using namespace hieragg;

namespace {

constexpr int kProcFailed = 75;  // any transport error code

// Requests are numbered in posting order. `failing` fails its test; `sticky` requests are
// not released by cancelFailed (they still move data) and end when put in `ended`.
class FailingTransport final : public Transport {
public:
    std::set<intptr_t> failing, sticky, ended, released;
    intptr_t nextReq = 1;
    size_t posted = 0;
    int isend(void*, bool, const void*, size_t, void*, int, int, void** req) override { return post(req); }
    int irecv(void*, bool, void*, size_t, void*, int, int, void** req) override { return post(req); }
    int test(void* req, bool& done) override {
        const auto id = reinterpret_cast<intptr_t>(req);
        EXPECT_EQ(released.count(id), 0u) << "request " << id << " tested after it was released";
        if (failing.count(id)) {
            released.insert(id);
            return kProcFailed;
        }
        done = ended.count(id) != 0;
        if (done) released.insert(id);
        return 0;
    }
    void abandon(void* req) override { released.insert(reinterpret_cast<intptr_t>(req)); }
    bool cancelFailed(void* req) override {
        const auto id = reinterpret_cast<intptr_t>(req);
        if (sticky.count(id)) return false;
        released.insert(id);
        return true;
    }
    int reduce(void*, const void*, void*, size_t, void*) override { return 0; }
    int copy(const void*, size_t, void*, void*, size_t, void*) override { return 0; }
    hieragg_dtype_info typeInfo(void*) override { return {1, 0, 1, 0, 1}; }
    void* packedType() override { return nullptr; }

private:
    int post(void** req) {
        ++posted;
        *req = reinterpret_cast<void*>(nextReq++);
        return 0;
    }
};

// Four receives and four sends posted at once, then one more send after all of them.
std::shared_ptr<const Schedule> eightThenOne() {
    ScheduleBuilder b("eight-then-one");
    std::vector<StepId> first;
    for (int i = 0; i < 4; ++i) first.push_back(b.recv(1, {kRecvBuf, 0}, {kPackedType, 0}, {}, static_cast<uint32_t>(i)));
    for (int i = 0; i < 4; ++i)
        first.push_back(b.send(1, {kRecvBuf, 0}, {kPackedType, 0}, {}, static_cast<uint32_t>(4 + i)));
    b.send(1, {kRecvBuf, 0}, {kPackedType, 0}, b.join(first), 8);
    return std::make_shared<const Schedule>(b.finish());
}

TaskBindings bindings(char* buf) {
    TaskBindings bind;
    bind.types = {nullptr, nullptr, nullptr};
    bind.rbuf = buf;
    return bind;
}

}  // namespace

TEST(TaskDrain, FailedTaskWaitsForTheMessagesItCouldNotCancel) {
    FailingTransport tr;
    tr.failing = {8};     // the last send fails at once (its peer died)
    tr.sticky = {5, 7};   // two sends still hand data to live peers
    char buf[1];
    Task t(eightThenOne(), tr, bindings(buf));
    // The failure is found inside the start; it comes with the completion, after the drain.
    ASSERT_EQ(t.start(), 0);
    for (int i = 0; i < 5; ++i) EXPECT_FALSE(t.progress()) << "done before the sticky sends ended";
    EXPECT_FALSE(t.done());
    EXPECT_EQ(tr.posted, 8u) << "a step fired after the failure";
    for (intptr_t id : {1, 2, 3, 4, 6, 8}) EXPECT_EQ(tr.released.count(id), 1u) << "request " << id << " not released";
    EXPECT_EQ(tr.released.count(5) + tr.released.count(7), 0u) << "a sticky send was released while moving data";
    tr.ended.insert(5);
    EXPECT_FALSE(t.progress());
    tr.ended.insert(7);
    EXPECT_TRUE(t.progress());
    EXPECT_TRUE(t.done());
    EXPECT_EQ(t.status(), kProcFailed);
    EXPECT_EQ(tr.released.size(), 8u);
}

TEST(TaskDrain, FailedTaskWhoseMessagesAllCancelEndsAtOnce) {
    FailingTransport tr;
    tr.failing = {3};
    char buf[1];
    Task t(eightThenOne(), tr, bindings(buf));
    // Nothing to drain: the failure is the start's result, as before; nothing after the
    // failed receive was posted.
    EXPECT_EQ(t.start(), kProcFailed);
    EXPECT_TRUE(t.done());
    EXPECT_EQ(t.status(), kProcFailed);
    EXPECT_EQ(tr.posted, 3u);
    EXPECT_EQ(tr.released.size(), 3u);
}

TEST(TaskDrain, FailureLaterInTheCallDrainsToo) {
    FailingTransport tr;
    tr.sticky = {1};
    char buf[1];
    Task t(eightThenOne(), tr, bindings(buf));
    ASSERT_EQ(t.start(), 0);
    EXPECT_FALSE(t.progress());
    tr.failing = {4};  // a receive fails on a later test (the failure is detected now)
    EXPECT_FALSE(t.progress());
    EXPECT_FALSE(t.done());
    tr.ended.insert(1);
    EXPECT_TRUE(t.progress());
    EXPECT_EQ(t.status(), kProcFailed);
    EXPECT_EQ(tr.posted, 8u);
    EXPECT_EQ(tr.released.size(), 8u);
}
