// The communicator's lock (hieragg_comm::mutex): recursive like std::recursive_mutex, whose
// uncontended lock and unlock cost about 40 instructions each in glibc, on every call; this
// one's cost a few (docs/architecture.md, "Blocking, nonblocking, persistent"). Starts on a
// communicator come from one thread at a time (MPI orders them); only a completion run by
// another thread's progress, or a setup stage, contends, and briefly: a waiter spins a
// little, then yields.
#pragma once
#include <pthread.h>
#include <sched.h>

#include <atomic>

namespace hieragg {

class CommMutex {
public:
    CommMutex() = default;
    CommMutex(const CommMutex&) = delete;
    CommMutex& operator=(const CommMutex&) = delete;

    void lock() {
        const pthread_t self = pthread_self();
        // Only this thread ever stores its own id, and clears it before it lets go.
        if (owner_.load(std::memory_order_relaxed) == self) {
            ++depth_;
            return;
        }
        for (unsigned spins = 0; locked_.exchange(true, std::memory_order_acquire);)
            while (locked_.load(std::memory_order_relaxed))
                if (++spins > kSpins) sched_yield();
        owner_.store(self, std::memory_order_relaxed);
        depth_ = 1;
    }
    void unlock() {
        if (--depth_) return;
        owner_.store(pthread_t{}, std::memory_order_relaxed);
        locked_.store(false, std::memory_order_release);
    }

private:
    static constexpr unsigned kSpins = 100;  // then every pass yields the core
    std::atomic<bool> locked_{false};
    std::atomic<pthread_t> owner_{pthread_t{}};  // the holder (glibc's pthread_self() is never 0)
    unsigned depth_ = 0;                         // the holder's nesting
};

// Holds `m` when `take`, else nothing (CallStart.cpp, runRepeat: a blocking repeat of the
// last call below MPI_THREAD_MULTIPLE, whose MPI calls follow one another on one thread at a
// time, so nothing else touches the state it reads and writes meanwhile).
class CommLockIf {
public:
    CommLockIf(CommMutex& m, bool take) : m_(take ? &m : nullptr) {
        if (m_) m_->lock();
    }
    ~CommLockIf() {
        if (m_) m_->unlock();
    }
    CommLockIf(const CommLockIf&) = delete;
    CommLockIf& operator=(const CommLockIf&) = delete;

private:
    CommMutex* m_;
};

}  // namespace hieragg
