// The executor's fragment templates (Schedule.hpp, FragmentPipeline) on hand-built
// schedules: a step before the template opens it, a ring temporary holds `window`
// fragments, the last fragment is shorter, a step after the template waits for every
// fragment, more fragments than channels reuse them in order, and two templates with
// their own segments run one after the other.
#include <gtest/gtest.h>

#include <numeric>

#include "SimFixture.hpp"
#include "hieragg/ScheduleBuilder.hpp"

using namespace hieragg;
using namespace hieragg::testing;

namespace {

void setStride(FragmentPipeline& p, uint32_t slot, ptrdiff_t stride, bool ring) {
    p.slotStride.resize(std::max<size_t>(p.slotStride.size(), slot + 1), 0);
    p.slotRing.resize(std::max<size_t>(p.slotRing.size(), slot + 1), 0);
    p.slotStride[slot] = stride;
    p.slotRing[slot] = ring;
}

// Rank 0 copies sbuf into rbuf (before the template), then sends rbuf fragment by fragment.
// Rank 1 receives each fragment into a ring temporary, copies it into rbuf, and after the
// last fragment copies all of rbuf into its sbuf (after the template).
void runTransfer(size_t bytes, size_t seg, size_t window) {
    const size_t fragments = (bytes + seg - 1) / seg;
    std::vector<unsigned char> src(bytes), mid(bytes, 0), dst(bytes, 0), back(bytes, 0);
    for (size_t i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
    auto fragmentsOf = [&](FragmentPipeline p) {
        p.fragments = fragments;
        p.window = window;
        p.lastCount = bytes - (fragments - 1) * seg;
        return p;
    };
    sim::SimNetwork net(2);
    std::vector<CollCall> calls(2);
    for (int r = 0; r < 2; ++r) {
        calls[r] = baseCall(HIERAGG_BCAST, r, 2, nullptr);
        calls[r].args.sbuf = r == 0 ? src.data() : back.data();
        calls[r].args.rbuf = r == 0 ? mid.data() : dst.data();
    }
    const TypeRef whole{kPackedType, bytes}, frag{kPackedType, seg};
    auto build = [&](const CollCall& c) {
        ScheduleBuilder b("fragments");
        FragmentPipeline p;
        if (c.rank == 0) {
            const StepId pre = b.copy({kSendBuf, 0}, whole, {kRecvBuf, 0}, whole);
            b.beginFragment();
            b.send(1, {kRecvBuf, 0}, frag, pre, stageChannel(1));
            setStride(p, kRecvBuf, static_cast<ptrdiff_t>(seg), false);
            b.endFragment(fragmentsOf(p));
        } else {
            const BufRef ring = b.temp(seg * window);
            b.beginFragment();
            const StepId got = b.recv(0, ring, frag, {}, stageChannel(1));
            const StepId put = b.copy(ring, frag, {kRecvBuf, 0}, frag, got);
            setStride(p, kRecvBuf, static_cast<ptrdiff_t>(seg), false);
            setStride(p, ring.slot, static_cast<ptrdiff_t>(seg), true);
            b.endFragment(fragmentsOf(p));
            b.copy({kRecvBuf, 0}, whole, {kSendBuf, 0}, whole, put);
        }
        Schedule s = b.finish();
        EXPECT_LE(s.steps.size(), 3u);
        EXPECT_EQ(s.executedSteps(), c.rank == 0 ? 1 + fragments : 1 + 2 * fragments);
        return s;
    };
    const std::string what = std::to_string(bytes) + " B in " + std::to_string(fragments) + " fragments, window " +
                             std::to_string(window);
    auto res = sim::runOne(net, calls, build);
    ASSERT_TRUE(res.ok) << what << ": " << res.error;
    EXPECT_EQ(mid, src) << what;
    EXPECT_EQ(dst, src) << what;
    EXPECT_EQ(back, src) << what << ": the step after the template ran before the last fragment";
    EXPECT_EQ(net.traffic(0, 1).messages, fragments) << what;
    EXPECT_EQ(net.traffic(0, 1).bytes, bytes) << what;
}

}  // namespace

TEST(FragmentPipeline, RunsTheTemplateOncePerFragment) {
    runTransfer(1000, 64, 3);   // 16 fragments, the last of 40 bytes
    runTransfer(64, 64, 1);     // one fragment
    runTransfer(1000, 7, 8);    // 143 fragments through a ring of 8
}

TEST(FragmentPipeline, MoreFragmentsThanChannels) {
    runTransfer(600 * 5 + 1, 5, 256);  // 601 fragments, the widest window
}

TEST(FragmentPipeline, BuilderRefusesBadTemplates) {
    ScheduleBuilder b;
    EXPECT_THROW(b.endFragment({}), std::logic_error);  // no beginFragment
    b.beginFragment();
    EXPECT_THROW(b.beginFragment(), std::logic_error);  // nested
    b.send(1, {kRecvBuf, 0}, {kPackedType, 1});
    FragmentPipeline p;
    p.fragments = 2;
    p.window = 300;  // more in flight than a stage has channels
    EXPECT_THROW(b.endFragment(p), std::logic_error);
}

// Two templates in one schedule, one after the other, with their own segments: rank 0
// sends its rbuf in 64-byte fragments, then its sbuf in 7-byte fragments (the second
// template waits for every fragment of the first); rank 1 receives them in the same order.
TEST(FragmentPipeline, TwoTemplatesInOrder) {
    const size_t bytesA = 1000, segA = 64, bytesB = 300, segB = 7;
    const size_t fragsA = (bytesA + segA - 1) / segA, fragsB = (bytesB + segB - 1) / segB;
    std::vector<unsigned char> a0(bytesA), b0(bytesB), a1(bytesA, 0), b1(bytesB, 0);
    for (size_t i = 0; i < bytesA; ++i) a0[i] = static_cast<unsigned char>(i * 5 + 1);
    for (size_t i = 0; i < bytesB; ++i) b0[i] = static_cast<unsigned char>(i * 11 + 2);
    sim::SimNetwork net(2);
    std::vector<CollCall> calls(2);
    for (int r = 0; r < 2; ++r) {
        calls[r] = baseCall(HIERAGG_BCAST, r, 2, nullptr);
        calls[r].args.sbuf = r == 0 ? b0.data() : b1.data();
        calls[r].args.rbuf = r == 0 ? a0.data() : a1.data();
    }
    auto pipelineOf = [](size_t bytes, size_t seg, uint32_t slot) {
        FragmentPipeline p = FragmentPipeline::of(bytes, seg, 4);
        p.setStride(slot, static_cast<ptrdiff_t>(seg), false);
        return p;
    };
    auto build = [&](const CollCall& c) {
        ScheduleBuilder b("two templates");
        const int peer = 1 - c.rank;
        auto move = [&](BufRef at, size_t seg, const Deps& after, uint32_t channel) {
            return c.rank == 0 ? b.send(peer, at, {kPackedType, seg}, after, channel)
                               : b.recv(peer, at, {kPackedType, seg}, after, channel);
        };
        b.beginFragment();
        const StepId first = move({kRecvBuf, 0}, segA, {}, stageChannel(1));
        b.endFragment(pipelineOf(bytesA, segA, kRecvBuf));
        b.beginFragment();
        move({kSendBuf, 0}, segB, first, stageChannel(2));
        b.endFragment(pipelineOf(bytesB, segB, kSendBuf));
        Schedule s = b.finish();
        EXPECT_EQ(s.steps.size(), 2u);
        EXPECT_EQ(s.pipelines.size(), 2u);
        EXPECT_EQ(s.executedSteps(), fragsA + fragsB);
        return s;
    };
    auto res = sim::runOne(net, calls, build);
    ASSERT_TRUE(res.ok) << res.error;
    EXPECT_EQ(a1, a0);
    EXPECT_EQ(b1, b0);
    EXPECT_EQ(net.traffic(0, 1).messages, fragsA + fragsB);
    EXPECT_EQ(net.traffic(0, 1).bytes, bytesA + bytesB);
}
