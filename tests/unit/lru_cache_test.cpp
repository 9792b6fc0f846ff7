// The per-communicator schedule/plan cache evicts the least recently used entry.
#include <gtest/gtest.h>

#include "hieragg/LruCache.hpp"

using hieragg::LruCache;

TEST(LruCache, EvictsTheLeastRecentlyUsedOnly) {
    LruCache<int> c(3);
    c.insert("a", 1);
    c.insert("b", 2);
    c.insert("c", 3);
    ASSERT_NE(c.find("a"), nullptr);  // a is now the most recent: b is the oldest
    c.insert("d", 4);
    EXPECT_EQ(c.size(), 3u);
    EXPECT_EQ(c.find("b"), nullptr);
    ASSERT_NE(c.find("a"), nullptr);
    EXPECT_EQ(*c.find("a"), 1);
    EXPECT_EQ(*c.find("c"), 3);
    EXPECT_EQ(*c.find("d"), 4);
}

TEST(LruCache, ReinsertReplacesWithoutGrowing) {
    LruCache<int> c(2);
    c.insert("a", 1);
    c.insert("a", 5);
    EXPECT_EQ(c.size(), 1u);
    EXPECT_EQ(*c.find("a"), 5);
}

TEST(LruCache, CyclingPastTheBoundKeepsTheRecentOnes) {
    LruCache<int> c(128);
    for (int i = 0; i < 1000; ++i) c.insert(std::to_string(i), i);
    EXPECT_EQ(c.size(), 128u);
    for (int i = 1000 - 128; i < 1000; ++i) ASSERT_NE(c.find(std::to_string(i)), nullptr) << i;
    EXPECT_EQ(c.find(std::to_string(1000 - 129)), nullptr);
}
