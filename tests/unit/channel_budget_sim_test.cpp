// The deepest accepted split (kMaxSplitLevels nested levels) must fit every
// recipe's channels into one call's tag block (4096 channels, src/runtime/
// TagAllocation.hpp kMaxChannels); deeper splits are refused by the parser.
#include <gtest/gtest.h>

#include "ReductionFixture.hpp"
#include "hieragg/hier/SplitSpec.hpp"

using namespace hieragg;
using namespace hieragg::testing;

TEST(ChannelBudgetSim, DeepestAcceptedSplitFitsTheTagBlock) {
    constexpr uint32_t kTagBlockChannels = 4096;
    const int levels = static_cast<int>(hier::kMaxSplitLevels);
    const int p = 1 << (levels + 1);  // every level splits: groups of 2, 4, ..., 2^levels
    std::vector<std::vector<int64_t>> keys(levels, std::vector<int64_t>(p));
    for (int l = 0; l < levels; ++l)
        for (int r = 0; r < p; ++r) keys[l][r] = r >> (l + 1);
    const hier::Hierarchy h = hier::Hierarchy::fromKeys(p, keys);
    ASSERT_EQ(h.levels(), levels);
    const hieragg_coll_kind kinds[] = {HIERAGG_BCAST,   HIERAGG_REDUCE,    HIERAGG_ALLREDUCE, HIERAGG_GATHER,
                                       HIERAGG_SCATTER, HIERAGG_ALLGATHER, HIERAGG_ALLTOALL,  HIERAGG_BARRIER,
                                       HIERAGG_SCAN,    HIERAGG_EXSCAN,    HIERAGG_REDUCE_SCATTER_BLOCK};
    for (hieragg_coll_kind k : kinds)
        for (int r : {0, 1, p / 2 + 1, p - 1}) {
            CollCall c = reductionCall(k, r, p, &h, sumOp(), 4096, 1024);
            c.args.root = p - 1;
            c.stype = c.rtype = {8, 0, 8, 0, 8};
            const Schedule s = recipes::buildSchedule(c);
            EXPECT_LE(s.channels, kTagBlockChannels) << hieragg_coll_name(k) << " rank " << r << ": " << s.algorithm;
        }
}
