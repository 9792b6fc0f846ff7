// A communicator's schedules per signature (CallCache::schedules): least recently used
// evicted first, within a count and a byte budget. The key (CallCacheKeys.hpp) holds the
// scalar arguments and a digest of the call's per-rank vectors; each entry keeps those
// vectors by value (CallVectors.hpp) and a lookup compares them, so a call whose vectors
// differ from the cached ones (a hash collision) misses instead of running a stale
// schedule. Keys stay small at any communicator size: a repeated call reuses its
// schedule whatever P.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/LruCache.hpp"
#include "hieragg/Schedule.hpp"

namespace hieragg {

struct CachedSchedule {
    std::shared_ptr<const Schedule> schedule;
    // keepVectors of the call it was built for (shared with LastCall::vectors)
    std::shared_ptr<const std::vector<char>> vectors;
};

// Memory a schedule itself holds (steps, dependencies, lists; not the temporaries a Task
// allocates): what caching it costs.
size_t scheduleMemoryBytes(const Schedule& s);

class ScheduleCache {
public:
    ScheduleCache(size_t capacity, size_t byteBudget) : lru_(capacity, byteBudget) {}
    // The entry under `key` built for vectors equal to `call`'s, or null.
    const CachedSchedule* find(const std::string& key, const CollCall& call);
    // Stores `schedule`, built for `call`, under `key`; returns the stored entry.
    const CachedSchedule& insert(const std::string& key, const CollCall& call, std::shared_ptr<const Schedule> schedule);
    size_t size() const { return lru_.size(); }
    size_t bytes() const { return lru_.bytes(); }

private:
    LruCache<CachedSchedule> lru_;
};

}  // namespace hieragg
