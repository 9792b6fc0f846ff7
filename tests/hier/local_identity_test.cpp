#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include "hieragg/hier/LocalIdentity.hpp"

using hieragg::hier::localIdentity;
using hieragg::hier::localNumaIndex;

TEST(LocalIdentity, HostnameAndWorldRank) {
    char expected[256] = {};
    ASSERT_EQ(gethostname(expected, sizeof expected - 1), 0);
    const auto id = localIdentity(7);
    EXPECT_EQ(id.worldRank, 7);
    EXPECT_EQ(id.hostname, expected);
    EXPECT_GE(id.numa, -1);
}

TEST(LocalIdentity, BindingToOneCpuGivesItsNumaDomain) {
    cpu_set_t saved;
    ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
    int cpu = -1;
    for (int c = 0; c < CPU_SETSIZE && cpu < 0; ++c)
        if (CPU_ISSET(c, &saved)) cpu = c;
    ASSERT_GE(cpu, 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    const int numa = localNumaIndex();
    const int again = localNumaIndex();  // cached topology, same answer
    ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
    // One CPU always lies inside exactly one NUMA node (hwloc reports at least one).
    EXPECT_GE(numa, 0);
    EXPECT_EQ(again, numa);
}
