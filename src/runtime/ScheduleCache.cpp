#include "ScheduleCache.hpp"

#include "CallVectors.hpp"

namespace hieragg {

size_t scheduleMemoryBytes(const Schedule& s) {
    auto held = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    size_t bytes = sizeof s + held(s.steps) + held(s.deps) + held(s.dependentBegin) + held(s.dependents) +
                   held(s.temps) + held(s.peers) + held(s.localPeers) + s.algorithm.capacity() + held(s.pipelines);
    for (const FragmentPipeline& p : s.pipelines) bytes += held(p.slotStride) + held(p.slotRing);
    return bytes;
}

const CachedSchedule* ScheduleCache::find(const std::string& key, const CollCall& call) {
    const CachedSchedule* e = lru_.find(key);
    return e && sameVectors(call, *e->vectors) ? e : nullptr;
}

const CachedSchedule& ScheduleCache::insert(const std::string& key, const CollCall& call,
                                            std::shared_ptr<const Schedule> schedule) {
    auto vectors = std::make_shared<std::vector<char>>();
    keepVectors(call, *vectors);
    const size_t bytes = key.size() + vectors->capacity() + scheduleMemoryBytes(*schedule);
    CachedSchedule e{std::move(schedule), std::move(vectors)};
    return lru_.insert(key, std::move(e), bytes);
}

}  // namespace hieragg
