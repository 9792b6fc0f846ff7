// Per-communicator state of the core (the hieragg_comm of the C ABI): the
// sequence number that gives every collective its own tags, the lazily built
// decomposition, and the schedule cache.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "CommCounters.hpp"
#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/RulesFile.hpp"
#include "hieragg/hier/Selection.hpp"

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
    std::unordered_map<std::string, std::shared_ptr<const hieragg::Schedule>> cache;
    // Selection: link class of each stage of the hierarchy, and the plans chosen so far
    // (per call signature class, hier::sizeClass), so the model runs once per class.
    std::vector<int> stageLinks;
    std::unordered_map<std::string, std::shared_ptr<const hieragg::hier::Plan>> plans;
    // The rules file's determinations for this communicator (SPEC 3.4), evaluated once
    // after the decomposition; null with no (usable) rules file.
    bool rulesEvaluated = false;
    // MPI_T counters; shared with this communicator's tasks (they may outlive it).
    std::shared_ptr<hieragg::CommCounters> counters = std::make_shared<hieragg::CommCounters>();
    bool countersLevelled = false;  // counters know the decomposition
    std::unique_ptr<hieragg::hier::Determinations> determinations;
};

namespace hieragg {

// Tag of channel 0 of collective number `seq`; channels count down from there.
int tagBase(uint32_t seq, bool localGroup);
constexpr uint32_t kMaxChannels = 4096;

// Builds the decomposition on first use (one identity exchange, blocking).
int ensureDecomposition(hieragg_comm& c);

}  // namespace hieragg
