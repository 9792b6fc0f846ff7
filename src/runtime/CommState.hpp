// Per-communicator state of the core (the hieragg_comm of the C ABI): the
// per-pair call numbers that give every collective its own tags, the
// decomposition (built by a nonblocking identity exchange on first use), the
// calls waiting for it or for the tag window, and the schedule cache.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "CallCache.hpp"
#include "CallWindow.hpp"
#include "CommCounters.hpp"
#include "OwnedCallArgs.hpp"
#include "ScheduleCache.hpp"
#include "TagLayout.hpp"
#include "hieragg/CollCall.hpp"
#include "hieragg/LruCache.hpp"
#include "hieragg/Schedule.hpp"
#include "hieragg/Task.hpp"
#include "hieragg/abi.h"
#include "hieragg/Transport.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/RulesFile.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg {
constexpr size_t kCacheLimit = 128;  // schedules (and plans) kept per communicator
// Memory the cached schedules (with their keys and per-rank vectors) of one communicator may
// hold; the most recent one stays whatever its size (ScheduleCache.hpp).
constexpr size_t kCacheBytes = size_t{64} << 20;
// A call started before the decomposition exists, or whose tags a call still in flight
// holds (CallWindow.hpp), or queued behind such a call; they run in start order once the
// decomposition exists and each fits the window. Its arrays are copied: a nonblocking
// caller may have freed its own by then.
struct PendingStart {
    OwnedCallArgs args;
    hieragg_complete_fn done;
    void* ctx;
    int64_t persistentId;  // -1: not a persistent request
};
// Tag bases of an intercommunicator's persistent request, per peer (Schedule::peers / localPeers).
struct PersistentTags {
    std::vector<int> peer, local;
};
struct OffloadSetupState;     // OffloadSetup.cpp
struct LinkCalibrationState;  // LinkCalibrationStage.cpp
}  // namespace hieragg

struct hieragg_comm {
    void* comm = nullptr;
    int rank = 0;
    int size = 1;
    bool inter = false;
    int remoteSize = 0;
    int worldRank = 0;
    // Calls so far that exchanged messages with each peer (communicator / remote group,
    // and an intercommunicator's local group): the same count on both ends of a pair.
    std::vector<uint32_t> pairSeq, localPairSeq;
    uint32_t persistentCount = 0;  // persistent requests initialised (their own tag spaces)
    // Intercommunicators number persistent requests per pair too (CoreAbi.cpp).
    std::vector<uint32_t> persistPairSeq, localPersistPairSeq;
    std::unordered_map<uint32_t, hieragg::PersistentTags> persistentTags;
    // Each persistent request's arguments, copied at its init: every start runs these
    // (the application may free or rewrite its arrays once the init returned).
    std::unordered_map<uint32_t, hieragg::OwnedCallArgs> persistentArgs;

    enum class Decomp { None, Exchanging, Ready } decomp = Decomp::None;
    std::deque<hieragg::PendingStart> pending;
    // The calls in flight here, against the tag window (CallWindow.hpp).
    hieragg::CallWindow window;
    std::vector<char> identityRecords;  // the exchange's receive buffer while it runs
    void (*onReady)(hieragg_comm&, int) = nullptr;  // what beginDecomposition was given
    std::unique_ptr<hieragg::hier::Hierarchy> hierarchy;  // null: run flat
    // Schedules and plans per signature, least recently used evicted first (kCacheLimit each;
    // schedules within kCacheBytes too, their per-rank vectors compared by value on a hit).
    hieragg::ScheduleCache cache{hieragg::kCacheLimit, hieragg::kCacheBytes};
    // Selection: link class of each stage of the hierarchy, and the plans chosen so far
    // (per call signature class, hier::sizeClass), so the model runs once per class.
    std::vector<int> stageLinks;
    // The cost model's parameters for this communicator: the process's (coll_hieragg_cost_*)
    // with the network link's measured alpha/beta once calibrated (LinkCalibrationStage.hpp);
    // the same on every rank of the communicator, so every rank picks the same plans.
    hieragg::hier::CostParams costs;
    std::shared_ptr<hieragg::LinkCalibrationState> calibration;  // while that stage runs
    hieragg::LruCache<std::shared_ptr<const hieragg::hier::Plan>> plans{hieragg::kCacheLimit};
    // The last call's signature (schedule and plan keys) and what it ran: a call with the
    // same signature skips both caches (CoreAbi.cpp, scheduleFor).
    std::string lastSignature;
    std::shared_ptr<const hieragg::hier::Plan> lastPlan;
    std::shared_ptr<const hieragg::Schedule> lastSchedule;
    std::shared_ptr<const std::vector<char>> lastVectors;  // its per-rank vectors (CallVectors.hpp)
    // The last call's raw arguments, kept when its datatypes are predefined and its kind has
    // no per-peer datatypes (CoreAbi.cpp, scheduleFor): a call with the same raw arguments
    // and per-rank vectors equal to lastVectors has the last signature, so it skips
    // describing its types and writing its keys.
    bool lastRawValid = false;
    hieragg_coll_args lastRaw{};
    hieragg_dtype_info lastRawStype{}, lastRawRtype{};
    int lastRawAlgorithm = 0;
    // MPI_T: the registry rows that served the last signature (countServed), valid once
    // counted; callIsLast says the call being launched has that signature.
    static constexpr size_t kMaxServed = 16;
    size_t lastServed[kMaxServed];
    size_t lastServedCount = 0;
    bool lastServedValid = false;
    bool callIsLast = false;
    // A finished task of this communicator kept for its next call (CoreAbi.cpp, launchTask):
    // a call that completes during its start (an eager send, a message already here) hands
    // its task straight to the next one, without the runtime's lock. Starts hold `mutex`.
    std::unique_ptr<hieragg::Task> spareTask;
    // The compiled fast path of blocking repeats of the last call (CallCache.hpp).
    hieragg::CallCache callCache;
    // Offload (docs/offload.md): this leader's transport (null on non-leaders and when
    // offload is off), what the group can run (the same on every rank; offloadOn says
    // whether there is a group at all), and the tickets that order its operations.
    std::unique_ptr<hieragg::Transport> offload;
    hieragg::OffloadCaps offloadCaps;
    bool offloadOn = false;
    uint64_t offloadTickets = 0;
    // The offload setup's exchanges run as Tasks after the identity exchange, before the
    // waiting calls are released (OffloadSetup.hpp); their state while they run.
    std::shared_ptr<hieragg::OffloadSetupState> offloadSetup;
    // The rules file's determinations for this communicator (SPEC 3.4), evaluated once
    // after the decomposition; null with no (usable) rules file.
    bool rulesEvaluated = false;
    // MPI_T counters; shared with this communicator's tasks (they may outlive it).
    std::shared_ptr<hieragg::CommCounters> counters = std::make_shared<hieragg::CommCounters>();
    bool countersLevelled = false;  // counters know the decomposition
    std::unique_ptr<hieragg::hier::Determinations> determinations;
    // Starts on this communicator come from one thread at a time (MPI orders them), but the
    // exchange completes from whichever thread drives progress.
    std::recursive_mutex mutex;
};

namespace hieragg {

// Tag regions (TagLayout.hpp, sized from the PML's MPI_TAG_UB): per-pair call numbers,
// persistent requests' own numbers, and the identity exchange's fixed channel block.
int tagBase(uint32_t seq, TagSpace space, bool localGroup);
int identityExchangeTagBase();
// The offload setup's fixed blocks below the identity exchange's, like it not tied to a
// call number: 0 addresses, 1 join results, 2 failure notices, 3 leader re-runs over the
// PML, 4 join notices (docs/offload.md).
int offloadExchangeTagBase(int stage);
// The network calibration's ping-pongs (stage 0) and its agreement (stage 1): fixed blocks
// below the offload setup's five (a rank still calibrating must not match a notice).
int calibrationTagBase(int stage);
// The calibration stage is over (c.costs final): the offload setup, then the waiting calls.
void continueSetupAfterCalibration(hieragg_comm& c);
// Starts a ring allgather of fixed-size records (`recs` holds c.size records, this rank's
// at its index) as a tracked Task on the fixed tag block `tagBase`; `done(&c, status)`
// runs when it completes (from progress). Returns an error code when nothing started.
int startRecordExchange(hieragg_comm& c, void* recs, size_t recordBytes, int tagBase, hieragg_complete_fn done);
// Ends the decomposition stage (Exchanging -> Ready) and releases the waiting calls.
void finishDecomposition(hieragg_comm& c, int status);
constexpr uint32_t kMaxChannels = TagLayout::kChannels;

// Starts whatever the decomposition needs (c.decomp None -> Exchanging or Ready). Never
// waits for another rank: the exchange is a Task progressed with the others, and
// `onReady(c)` runs (c.mutex held) when the decomposition exists, here or from progress.
using ReadyFn = void (*)(hieragg_comm& c, int status);
void beginDecomposition(hieragg_comm& c, ReadyFn onReady);

}  // namespace hieragg
