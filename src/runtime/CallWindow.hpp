// Which calls of one communicator are in flight on this rank, so that no call posts a
// message on tags a call still in flight holds (docs/architecture.md, "Messages and tags").
//
// A call's tags are `n mod W` of its per-pair call number n (TagLayout.hpp): call n and
// call n + W of one pair share them. This rank numbers its calls too, in launch order,
// each taking as many of these numbers as it may take per-pair numbers on any one pair
// (a Task one, a two-stage call two, a strong reduction's chain its links). On every pair
// the difference of two calls' numbers is then at most the difference of theirs, so a call
// whose numbers end within W of the first number of the oldest call in flight cannot meet
// the tags of any call in flight. One that does not fit waits, queued in start order
// (DecompositionStage::pending), and starts from the progress engine once the older calls have
// completed here: they never depend on later calls, so the wait always ends.
//
// Persistent requests have tags of their own, fixed at their init: on an
// intracommunicator `id mod W`, so two requests whose ids differ by a multiple of W must
// not be active at once; on an intercommunicator per-pair numbers taken at the init,
// which differ by at most the ids' difference, so ids at least W apart must not be.
//
// Blocking calls are counted but not recorded: nothing else starts on the communicator
// while one runs (MPI orders a communicator's calls, and the caller waits for it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <set>

namespace hieragg {

class CallWindow {
public:
    // No nonblocking call and no persistent request of the communicator in flight here.
    bool idle() const { return calls_.empty() && persistent_.empty(); }
    // Whether a call taking up to `numbers` per-pair numbers may start now under window
    // `w`. Alone it always may (its own links follow one another).
    bool fitsCall(uint64_t numbers, uint32_t w) const {
        return calls_.empty() || next_ + numbers - *calls_.begin() <= w;
    }
    // Whether persistent request `id` may start now under window `w`.
    bool fitsPersistent(uint32_t id, bool inter, uint32_t w) const;
    // A call starts: returns its first number; `inFlight` records it until closeCall.
    uint64_t openCall(uint64_t numbers, bool inFlight) {
        const uint64_t first = next_;
        next_ += numbers;
        if (inFlight) calls_.insert(first);
        return first;
    }
    void closeCall(uint64_t first) { calls_.erase(first); }
    void openPersistent(uint32_t id) { persistent_.insert(id); }
    void closePersistent(uint32_t id) { persistent_.erase(id); }
    size_t inFlight() const { return calls_.size() + persistent_.size(); }

    bool draining = false;   // the queue is being launched (CallStart.cpp, drainPending)
    bool announced = false;  // coll_hieragg_verbose said once that a call waited

private:
    uint64_t next_ = 0;
    std::set<uint64_t> calls_;        // first numbers of the nonblocking calls in flight
    std::set<uint32_t> persistent_;   // persistent requests active
};

}  // namespace hieragg
