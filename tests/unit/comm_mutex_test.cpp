// CommMutex (src/runtime/CommMutex.hpp): the communicator's recursive lock excludes other
// threads, and its holder may take it again.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "../../src/runtime/CommMutex.hpp"

using hieragg::CommMutex;

// Threads that each add to a plain counter under the lock, taken two levels deep (as a
// completion callback does under a start), lose no increment: the total is threads * rounds.
TEST(CommMutex, ExcludesOtherThreadsAndNests) {
    CommMutex m;
    long counter = 0;
    int inside = 0, most = 0;  // threads inside the outer section at once
    constexpr int kThreads = 4, kRounds = 20000;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&] {
            for (int r = 0; r < kRounds; ++r) {
                std::lock_guard<CommMutex> outer(m);
                most = std::max(most, ++inside);
                {
                    std::lock_guard<CommMutex> inner(m);
                    counter = counter + 1;
                }
                counter = counter + 1;
                --inside;
            }
        });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(counter, 2L * kThreads * kRounds);
    EXPECT_EQ(most, 1);
}

// A thread waiting for the lock gets it only once the holder has undone every level.
TEST(CommMutex, AnotherThreadWaitsUntilTheLastUnlock) {
    CommMutex m;
    std::atomic<int> stage{0};
    m.lock();
    m.lock();
    std::thread other([&] {
        stage.store(1);
        std::lock_guard<CommMutex> g(m);
        stage.store(2);
    });
    while (stage.load() < 1) std::this_thread::yield();
    m.unlock();  // still held once
    for (int i = 0; i < 1000; ++i) std::this_thread::yield();
    EXPECT_EQ(stage.load(), 1);
    m.unlock();
    other.join();
    EXPECT_EQ(stage.load(), 2);
    // Free again: this thread takes it at once.
    m.lock();
    m.unlock();
}

// CommLockIf holds the lock exactly when told to (runRepeat under MPI_THREAD_MULTIPLE) and
// lets go at its end: with `take`, another thread waits until the guard is gone; without,
// it takes the lock while the guard lives.
TEST(CommMutex, CommLockIfHoldsTheLockOnlyWhenTold) {
    for (const bool take : {true, false}) {
        CommMutex m;
        std::atomic<int> stage{0};
        std::thread other;
        {
            hieragg::CommLockIf guard(m, take);
            other = std::thread([&] {
                stage.store(1);
                std::lock_guard<CommMutex> g(m);
                stage.store(2);
            });
            while (stage.load() < 1) std::this_thread::yield();
            if (take) {
                for (int i = 0; i < 1000; ++i) std::this_thread::yield();
                EXPECT_EQ(stage.load(), 1) << "the guard holds the lock";
            } else {
                while (stage.load() < 2) std::this_thread::yield();  // never returns if it held it
            }
        }
        other.join();
        EXPECT_EQ(stage.load(), 2);
        m.lock();  // free again either way
        m.unlock();
    }
}
