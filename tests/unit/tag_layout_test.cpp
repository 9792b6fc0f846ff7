// TagLayout (src/runtime/TagLayout.hpp): hieragg's tags fit the PML's tag space.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../../src/runtime/TagLayout.hpp"

using hieragg::TagLayout;
using hieragg::TagSpace;

namespace {

// Every tag of a layout: calls and persistent requests (both groups) at every call number
// of the window and every channel, and the setup blocks' channels.
std::vector<long long> allTags(const TagLayout& t) {
    std::vector<long long> tags;
    for (uint32_t seq = 0; seq < t.window(); ++seq)
        for (TagSpace sp : {TagSpace::Call, TagSpace::Persistent})
            for (bool local : {false, true})
                for (uint32_t ch = 0; ch < TagLayout::kChannels; ++ch)
                    tags.push_back(static_cast<long long>(t.callBase(seq, sp, local)) - ch);
    for (uint32_t b = 0; b < TagLayout::kSetupBlocks; ++b)
        for (uint32_t ch = 0; ch < TagLayout::kChannels; ++ch)
            tags.push_back(static_cast<long long>(t.setupBase(b)) - ch);
    return tags;
}

// What a PML with `bits` tag bits (two's complement; MPI_TAG_UB 2^(bits-1) - 1) delivers
// for `tag`: its low bits, read back as a signed number (pml ucx shifts the tag into the
// top 24 bits of its 64-bit match word; mtl ofi masks it).
long long truncated(long long tag, int bits) {
    const long long m = 1LL << bits;
    long long v = ((tag % m) + m) % m;
    return v >= m / 2 ? v - m : v;
}

void expectFits(long long maxTag, int bits, uint32_t window) {
    std::string why;
    const TagLayout t = TagLayout::forMaxTag(maxTag, why);
    ASSERT_EQ(t.window(), window) << why;
    std::vector<long long> seen = allTags(t);
    for (long long& tag : seen) {
        ASSERT_LE(tag, -28);
        ASSERT_GE(tag, -(maxTag + 1));
        // What the PML's bits deliver: the same negative number (MPI_ANY_TAG receives,
        // which match only non-negative tags, never see it), so apart from every other tag.
        tag = truncated(tag, bits);
    }
    std::sort(seen.begin(), seen.end());
    const auto twice = std::adjacent_find(seen.begin(), seen.end());
    EXPECT_TRUE(twice == seen.end()) << "tag " << *twice << " twice";
    EXPECT_EQ(seen.front(), t.lowest());
    EXPECT_EQ(seen.back(), -28);
}

}  // namespace

TEST(TagLayout, ThirtyTwoBitTagsKeepTheFullWindow) {
    std::string why;
    const TagLayout t = TagLayout::forMaxTag(2147483647LL, why);
    EXPECT_EQ(t.window(), 65536u);
    // The layout of a 32-bit PML (ob1, mtl ofi's default modes) is the one hieragg always had.
    EXPECT_EQ(t.callBase(0, TagSpace::Call, false), -28);
    EXPECT_EQ(t.callBase(3, TagSpace::Call, false), -28 - 3 * 4096);
    EXPECT_EQ(t.callBase(65536 + 3, TagSpace::Call, false), -28 - 3 * 4096);
    EXPECT_EQ(t.callBase(0, TagSpace::Call, true), -28 - (1 << 28));
    EXPECT_EQ(t.callBase(0, TagSpace::Persistent, false), -28 - (1 << 29));
    EXPECT_EQ(t.setupBase(0), -28 - (1 << 30));
    EXPECT_EQ(t.setupBase(7), -28 - (1 << 30) - 7 * 4096);
    EXPECT_GE(t.lowest(), -2147483648LL);
    // A default layout is the same.
    EXPECT_EQ(TagLayout().window(), 65536u);
}

TEST(TagLayout, PmlUcx24BitTags) { expectFits(8388607, 24, 256); }

TEST(TagLayout, MtlOfiTag2Mode20BitTagsAreRefused) {
    // 20 bits would give a window of 16: too few for the calls programs keep in flight.
    std::string why;
    EXPECT_EQ(TagLayout::forMaxTag(524287, why).window(), 0u);
    EXPECT_NE(why.find("MPI_TAG_UB 524287"), std::string::npos) << why;
}

TEST(TagLayout, WindowIsThePowerOfTwoThatFits) {
    // Just enough for 512 (4*512 + 8 blocks of 4096 below -28), and one tag less.
    const long long need512 = (4LL * 512 + 8) * 4096 + 28 - 2;
    std::string why;
    EXPECT_EQ(TagLayout::forMaxTag(need512, why).window(), 512u);
    EXPECT_EQ(TagLayout::forMaxTag(need512 - 1, why).window(), 256u);
    expectFits(need512, 25, 512);  // 2^24 > need512: 25 bits hold every tag
}

TEST(TagLayout, TooSmallATagSpaceIsRefusedWithTheReason) {
    std::string why;
    const TagLayout t = TagLayout::forMaxTag(32767, why);  // MPI's guaranteed minimum
    EXPECT_EQ(t.window(), 0u);
    EXPECT_NE(why.find("MPI_TAG_UB 32767"), std::string::npos) << why;
    EXPECT_NE(why.find("too small"), std::string::npos) << why;
    EXPECT_NE(why.find("MPI_TAG_UB >= 4227098"), std::string::npos) << why;
    // The bound is exact: 4227098 takes the smallest window, one less does not.
    EXPECT_EQ(TagLayout::forMaxTag(4227098, why).window(), TagLayout::kMinWindow);
    EXPECT_EQ(TagLayout::forMaxTag(4227097, why).window(), 0u);
}

// coll_hieragg_tag_window: a smaller window, rounded down to a power of two, from the same
// top; never a larger one than the PML's tags allow.
TEST(TagLayout, CappedWindowIsAPowerOfTwoWithinThePmlsOwn) {
    std::string why;
    const TagLayout full = TagLayout::forMaxTag(2147483647LL, why);
    EXPECT_EQ(full.capped(0).window(), TagLayout::kMaxWindow);
    EXPECT_EQ(full.capped(16).window(), 16u);
    EXPECT_EQ(full.capped(20).window(), 16u);
    EXPECT_EQ(full.capped(1).window(), 1u);
    EXPECT_EQ(full.capped(1u << 20).window(), TagLayout::kMaxWindow);
    EXPECT_EQ(full.capped(16).top(), full.top());
    const TagLayout ucx = TagLayout::forMaxTag(8388607LL, why);
    EXPECT_EQ(ucx.capped(4096).window(), 256u);
    EXPECT_EQ(ucx.capped(100).window(), 64u);
    // Call numbers 0 and W share their tags; 0 and 1 do not.
    const TagLayout w4 = full.capped(4);
    EXPECT_EQ(w4.callBase(0, TagSpace::Call, false), w4.callBase(4, TagSpace::Call, false));
    EXPECT_NE(w4.callBase(0, TagSpace::Call, false), w4.callBase(1, TagSpace::Call, false));
    EXPECT_GE(w4.lowest(), full.lowest());
}

// The rule a communicator keeps for its calls' tags (TagLayout::callRule, no division) gives
// top - (n mod W) * 4096 for every window and top, also where a per-pair number wraps at 2^32.
TEST(TagLayout, CallRuleIsTopMinusTheNumberModTheWindowTimesTheChannels) {
    std::string why;
    for (int top : {-28, -34}) {
        const TagLayout full = TagLayout::forMaxTag(2147483647LL, top, why);
        for (uint32_t limit : {1u, 16u, 256u, 65536u}) {
            const TagLayout t = full.capped(limit);
            ASSERT_EQ(t.window(), limit);
            const hieragg::CallTagRule rule = t.callRule();
            for (uint32_t n : {0u, 1u, limit - 1, limit, limit + 1, 12345u, 4294967295u}) {
                const long long expected = top - static_cast<long long>(n % limit) * 4096;
                EXPECT_EQ(rule.base(n), expected) << "window " << limit << " top " << top << " n " << n;
                EXPECT_EQ(t.callBase(n, TagSpace::Call, false), expected);
            }
            // A per-pair count wraps from 2^32 - 1 to 0, a multiple of W: the tags go on cyclically.
            uint32_t wrapped = 4294967295u;
            ++wrapped;
            EXPECT_EQ(rule.base(wrapped), top);
        }
    }
}
