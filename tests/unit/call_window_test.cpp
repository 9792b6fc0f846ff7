// CallWindow (src/runtime/CallWindow.hpp): a call that starts under it never takes a tag
// slot (pair, number mod W) that a call still in flight holds, however the calls touch the
// pairs and in whatever order they complete; and calls kept waiting start once the older
// ones have completed.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "../../src/runtime/CallWindow.hpp"

using hieragg::CallWindow;

namespace {

// One rank's calls on a communicator of `pairs` peers, as CallStart.cpp launches them: each
// call takes the next number of 1 or 2 (a two-stage call) of the pairs it touches, some
// blocking (completed before the next start), the others completing in random order. A
// call that does not fit waits, and so do all calls after it (start order).
void runModel(uint32_t window, unsigned seed, int calls, int pairs) {
    std::mt19937 rng(seed);
    CallWindow cw;
    std::vector<uint32_t> pairSeq(pairs, 0);
    struct Call {
        uint64_t first;
        std::vector<std::pair<int, uint32_t>> slots;  // (pair, number)
    };
    std::map<int, Call> inFlight;  // by start order
    std::map<std::pair<int, uint32_t>, int> held;  // (pair, number mod W) -> call
    struct Waiting {
        int id;
        uint64_t numbers;
        bool blocking;
    };
    std::deque<Waiting> queue;
    int waited = 0;

    auto launch = [&](const Waiting& w) {
        Call c;
        c.first = cw.openCall(w.numbers, !w.blocking);
        for (int p = 0; p < pairs; ++p) {
            if (rng() % 3 == 0) continue;  // this call does not touch pair p
            for (uint64_t n = 0; n < w.numbers; ++n) {
                const uint32_t num = pairSeq[p]++;
                const auto slot = std::make_pair(p, num % window);
                ASSERT_EQ(held.count(slot), 0u) << "call " << w.id << " takes pair " << p << " number " << num
                                                << " whose tags call " << held[slot] << " still holds";
                c.slots.push_back({p, num % window});
            }
        }
        if (w.blocking) return;  // over before anything else starts
        for (const auto& s : c.slots) held[s] = w.id;
        inFlight[w.id] = std::move(c);
    };
    auto drain = [&] {
        while (!queue.empty() && cw.fitsCall(queue.front().numbers, window)) {
            const Waiting w = queue.front();
            queue.pop_front();
            launch(w);
        }
    };
    auto completeOne = [&] {
        auto it = inFlight.begin();
        std::advance(it, rng() % inFlight.size());
        for (const auto& s : it->second.slots) held.erase(s);
        cw.closeCall(it->second.first);
        inFlight.erase(it);
        drain();
    };
    for (int id = 0; id < calls; ++id) {
        const Waiting w{id, rng() % 4 == 0 ? 2u : 1u, rng() % 5 == 0};
        if (queue.empty() && cw.fitsCall(w.numbers, window)) {
            launch(w);
        } else {
            queue.push_back(w);
            ++waited;
        }
        if (w.blocking)  // the caller waits: older calls complete until it has run
            while (!queue.empty()) completeOne();
        if (!inFlight.empty() && rng() % 4 == 0) completeOne();
    }
    while (!inFlight.empty() || !queue.empty()) {
        ASSERT_FALSE(inFlight.empty()) << "calls wait with nothing in flight";
        completeOne();
    }
    EXPECT_GT(waited, 0) << "the model never filled the window";
    EXPECT_TRUE(cw.idle());
}

}  // namespace

TEST(CallWindow, NoCallTakesTagsOfOneInFlight) {
    for (uint32_t window : {1u, 2u, 4u, 16u})
        for (unsigned seed = 1; seed <= 20; ++seed) runModel(window, seed, 400, 5);
}

TEST(CallWindow, AloneACallAlwaysFits) {
    CallWindow cw;
    EXPECT_TRUE(cw.fitsCall(10000, 256));  // a strong chain longer than the window
    const uint64_t a = cw.openCall(10000, true);
    EXPECT_FALSE(cw.fitsCall(1, 256));
    cw.closeCall(a);
    EXPECT_TRUE(cw.fitsCall(1, 256));
}

TEST(CallWindow, CallsWithinTheWindowOfTheOldestFit) {
    CallWindow cw;
    const uint64_t first = cw.openCall(1, true);
    for (int i = 1; i < 16; ++i) {
        ASSERT_TRUE(cw.fitsCall(1, 16)) << i;
        cw.openCall(1, i % 2 == 0);
    }
    EXPECT_FALSE(cw.fitsCall(1, 16));  // number 16 is number 0's slot
    cw.closeCall(first);
    // The oldest in flight is now number 2: numbers up to 17 fit.
    EXPECT_TRUE(cw.fitsCall(2, 16));
    EXPECT_FALSE(cw.fitsCall(3, 16));
}

TEST(CallWindow, PersistentRequestsSharingTagsNeverActiveTogether) {
    CallWindow cw;
    cw.openPersistent(3);
    // Intracommunicator: tags are the init number mod W.
    EXPECT_FALSE(cw.fitsPersistent(3 + 16, false, 16));
    EXPECT_FALSE(cw.fitsPersistent(3 + 48, false, 16));
    EXPECT_TRUE(cw.fitsPersistent(4, false, 16));
    EXPECT_TRUE(cw.fitsPersistent(3 + 17, false, 16));
    // Intercommunicator: per-pair numbers taken at the inits differ by at most the ids'
    // difference, so ids at least W apart must not be active together.
    EXPECT_TRUE(cw.fitsPersistent(3 + 15, true, 16));
    EXPECT_FALSE(cw.fitsPersistent(3 + 17, true, 16));
    EXPECT_FALSE(cw.idle());
    cw.closePersistent(3);
    EXPECT_TRUE(cw.fitsPersistent(3 + 16, false, 16));
    EXPECT_TRUE(cw.idle());
}
