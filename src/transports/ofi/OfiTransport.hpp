// The offload transport of one communicator's leader (SPEC 3.3; docs/offload.md): an
// RDM endpoint on the process's provider whose address vector holds exactly the
// communicator's leaders in leader-space order, and the collective group they joined at
// setup. Point-to-point messages, copies and reductions stay on the PML transport it
// wraps; barrier, bcast and allreduce over the leaders run as fi_barrier, fi_broadcast
// and fi_allreduce. (libfabric 1.17's software collectives number a group's members by
// their place in the address vector, so a group needs an address vector of its own,
// hence an endpoint per communicator rather than one per process.)
#pragma once
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "LeaderOpOverPml.hpp"
#include "OfiFabric.hpp"
#include "OfiTriggeredChain.hpp"
#include "hieragg/ForwardingTransport.hpp"
#include "hieragg/OffloadBackend.hpp"
#include "hieragg/Transport.hpp"

struct fid_ep;
struct fid_av;
struct fid_cq;
struct fid_eq;
struct fid_av_set;
struct fid_mc;

namespace hieragg::ofi {

// What a transport needs to survive a failing fabric (docs/offload.md, "Failure handling"):
// the runtime's description (OffloadRecovery) with the leaders as a group of PML peers.
struct RecoveryConfig : OffloadRecovery {
    LeaderGroup group;  // tagBase: the re-run operations' tag block
};

class OfiTransport final : public ForwardingTransport<OffloadEndpoint> {
public:
    OfiTransport(Transport& pml, std::shared_ptr<Fabric> fabric);
    ~OfiTransport() override;

    // Opens the endpoint; returns its address, or empty with *why.
    std::vector<char> open(std::string* why) override;
    // Joins the group of `addresses` (every leader's, in leader order; mine at `me`), waiting
    // at most `timeoutSec`, or until `giveUp` (polled while waiting) says another leader will
    // not join. False with *why if it failed.
    bool join(const std::vector<std::vector<char>>& addresses, int me, double timeoutSec, std::string* why,
              const std::function<bool(std::string*)>& giveUp = nullptr) override;
    const OffloadCaps& caps() const override { return caps_; }
    // After a successful join on every leader: listen for the other leaders' failure notices.
    // Returns non-zero if the notices' receives could not be posted.
    int enableRecovery(RecoveryConfig cfg);
    // The same from the runtime's backend-neutral description (OfiBackend.cpp).
    int enableRecovery(const OffloadRecovery& cfg) override;
    // Whether this leader runs the group's operations over the PML now (a failure was agreed).
    bool fellBack() override;

    // Point-to-point, copies and reductions go to the PML (ForwardingTransport); progress
    // also drives the fabric.
    void progress() override;

    int icollective(const FabricCollective& what, void** req) override;
    int testCollective(void* req, bool& done) override;
    void abandonCollective(void* req) override;
    void pollBackground() override;
    void closeForExit() override;
    void stopListening() override;

private:
    struct Op;
    void poll();      // reads completions (caller holds mutex_)
    void pollChains();  // the same for triggered chains: their counters and error completions
    void issueReady();  // starts queued operations whose turn it is (caller holds mutex_)
    int issue(Op& op);
    // Failure handling (OfiRecovery.cpp; caller holds mutex_).
    struct Notice;
    void recover();                         // notices, timeouts, re-runs, and reclaiming ops
    void originate(uint64_t failedSeq, int reason, const std::string& why);
    void fallBackFrom(uint64_t seq, int origin, int reason, const std::string& why);
    void runOverPml(Op& op);
    int postNoticeRecv(size_t member);
    void reclaim();
    void release(Op& op);  // the task is done with it
    bool injectNow();      // coll_hieragg_ofi_inject_error says this operation fails

    Transport& pml_;
    void closeFabricObjects();
    std::shared_ptr<Fabric> fabric_;
    // The endpoint and the queues and address vector bound to it (open()).
    fid_ep* ep_ = nullptr;
    fid_av* av_ = nullptr;
    fid_cq* cq_ = nullptr;
    fid_eq* eq_ = nullptr;
    // The collective group the endpoint joined (join(); none with triggered chains).
    struct JoinedGroup {
        fid_av_set* members = nullptr;  // every leader's address
        fid_mc* mc = nullptr;           // null: not joined
        uint64_t addr = 0;              // fi_addr_t of the group
    } group_;
    OffloadCaps caps_;
    // A provider with triggered operations instead of collectives: this endpoint runs
    // triggered chain broadcasts (counters bound, selective completion), nothing else.
    std::unique_ptr<TriggeredChains> chains_;
    std::mutex mutex_;
    std::deque<Op*> queued_;  // not started yet, in firing order
    uint64_t serving_ = 0;    // the ticket whose operations may start
    bool broken_ = false;     // an operation was abandoned: the order can no longer be kept
    // Failure handling: every operation, numbered in issue order (the same on every leader),
    // is kept (with its input) until it is old and nobody holds it, so a leader whose fabric
    // operation completed can still take part when the others re-run it over the PML.
    std::deque<std::unique_ptr<Op>> ops_;
    uint64_t nextSeq_ = 0;
    size_t keptBytes_ = 0;                // inputs held by ops_ (bounded by reclaim)
    uint64_t fallbackFrom_ = UINT64_MAX;  // operations from this one on run over the PML
    bool recovery_ = false;
    RecoveryConfig rc_;
    bool listening_ = true;               // false once the communicator is being freed
    std::vector<void*> noticeRecvs_;      // per member (null for me)
    std::vector<std::unique_ptr<Notice>> noticeIn_;
    std::vector<std::pair<void*, std::unique_ptr<Notice>>> noticeOut_;
    bool warned_ = false;
    uint64_t backgroundTicks_ = 0;
};

}  // namespace hieragg::ofi
