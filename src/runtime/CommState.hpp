// Per-communicator state of the core (the hieragg_comm of the C ABI): the
// sequence number that gives every collective its own tags, the lazily built
// decomposition, and the schedule cache.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "hieragg/CollCall.hpp"
#include "hieragg/LruCache.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg {
constexpr size_t kCacheLimit = 128;  // schedules (and plans) kept per communicator
}

struct hieragg_comm {
    void* comm = nullptr;
    int rank = 0;
    int size = 1;
    bool inter = false;
    int remoteSize = 0;
    int worldRank = 0;
    uint32_t seq = 0;  // collectives started on this communicator (same on every rank)
    bool decomposed = false;
    std::unique_ptr<hieragg::hier::Hierarchy> hierarchy;  // null: run flat
    // Schedules and plans per signature, least recently used evicted first (kCacheLimit each).
    hieragg::LruCache<std::shared_ptr<const hieragg::Schedule>> cache{hieragg::kCacheLimit};
    // Selection: link class of each stage of the hierarchy, and the plans chosen so far
    // (per call signature class, hier::sizeClass), so the model runs once per class.
    std::vector<int> stageLinks;
    hieragg::LruCache<std::shared_ptr<const hieragg::hier::Plan>> plans{hieragg::kCacheLimit};
};

namespace hieragg {

// Tag of channel 0 of collective number `seq`; channels count down from there.
int tagBase(uint32_t seq, bool localGroup);
constexpr uint32_t kMaxChannels = 4096;

// Builds the decomposition on first use (one identity exchange, blocking).
int ensureDecomposition(hieragg_comm& c);

}  // namespace hieragg
