// One flat allgatherv on the simulator with a row forced, as the flat rows' tests run it:
// uneven counts (every third rank empty when asked), blocks in rank order or reversed with
// a gap word after each, in place or not; run() checks every rank's rbuf against the
// closed form of the inputs (every block at its displacement, the gaps untouched).
#pragma once
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "DataMovementFixture.hpp"

namespace hieragg::testing {

struct FlatAllgathervCase {
    static constexpr int64_t kUntouched = -7;
    static int64_t value(int src, size_t i) { return 1000 * src + static_cast<int64_t>(i) + 1; }

    int p;
    std::vector<int> counts, displs;
    int words = 0;  // rbuf length - 1
    std::vector<std::vector<int64_t>> send, recv;
    std::vector<CollCall> calls;
    sim::SimNetwork net;

    FlatAllgathervCase(int ranks, int algorithm, bool rankOrder, bool inPlace, bool zeros)
        : p(ranks), counts(ranks), displs(ranks), send(ranks), net(ranks) {
        for (int r = 0; r < p; ++r) counts[r] = zeros && r % 3 == 1 ? 0 : 1 + (r * 7) % 4;
        for (int j = 0; j < p; ++j) {
            const int r = rankOrder ? j : p - 1 - j;
            displs[r] = words;
            words += counts[r] + (rankOrder ? 0 : 1);  // out of order: a gap word after every block
        }
        recv.assign(p, std::vector<int64_t>(words + 1, kUntouched));
        for (int r = 0; r < p; ++r) {
            for (int i = 0; i < counts[r]; ++i) send[r].push_back(value(r, i));
            CollCall c = baseCall(HIERAGG_ALLGATHERV, r, p, nullptr);
            c.algorithm = algorithm;
            c.args.sbuf = inPlace ? nullptr : send[r].data();
            c.args.in_place = inPlace;
            c.args.stype = inPlace ? nullptr : &int64Type();
            c.args.scount = counts[r];
            c.args.rbuf = recv[r].data();
            c.args.rtype = &int64Type();
            c.args.rcounts = counts.data();
            c.args.rdispls = displs.data();
            if (inPlace)
                for (int i = 0; i < counts[r]; ++i) recv[r][displs[r] + i] = value(r, i);
            calls.push_back(c);
        }
    }

    void run() {
        auto res = sim::runOne(net, calls, recipeBuilder());
        ASSERT_TRUE(res.ok) << res.error;
        EXPECT_EQ(net.unmatchedMessages(), 0u);
        std::vector<int64_t> expect(words + 1, kUntouched);
        for (int s = 0; s < p; ++s)
            for (int i = 0; i < counts[s]; ++i) expect[displs[s] + i] = value(s, i);
        for (int r = 0; r < p; ++r) EXPECT_EQ(recv[r], expect) << "rank " << r;
    }
};

// check(p, rankOrder, inPlace, zeros) for p = 1..9 and every layout, traced.
template <class Check>
void forEveryFlatAllgathervCase(Check check) {
    for (int p = 1; p <= 9; ++p)
        for (bool rankOrder : {true, false})
            for (bool inPlace : {false, true})
                for (bool zeros : {false, true}) {
                    SCOPED_TRACE("p=" + std::to_string(p) + (rankOrder ? " rank order" : " reversed, gaps") +
                                 (inPlace ? " in place" : "") + (zeros ? " zero counts" : ""));
                    check(p, rankOrder, inPlace, zeros);
                }
}

}  // namespace hieragg::testing
