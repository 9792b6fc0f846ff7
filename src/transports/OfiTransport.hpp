// The offload transport of one communicator's leader (SPEC 3.3; docs/offload.md): an
// RDM endpoint on the process's provider whose address vector holds exactly the
// communicator's leaders in leader-space order, and the collective group they joined at
// setup. Point-to-point messages, copies and reductions stay on the PML transport it
// wraps; barrier, bcast and allreduce over the leaders run as fi_barrier, fi_broadcast
// and fi_allreduce. (libfabric 1.17's software collectives number a group's members by
// their place in the address vector, so a group needs an address vector of its own,
// hence an endpoint per communicator rather than one per process.)
#pragma once
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "OfiFabric.hpp"
#include "OfiTriggeredChain.hpp"
#include "hieragg/Transport.hpp"

struct fid_ep;
struct fid_av;
struct fid_cq;
struct fid_eq;
struct fid_av_set;
struct fid_mc;

namespace hieragg::ofi {

class OfiTransport final : public Transport {
public:
    OfiTransport(Transport& pml, std::shared_ptr<Fabric> fabric);
    ~OfiTransport() override;

    // Opens the endpoint; returns its address, or empty with *why.
    std::vector<char> open(std::string* why);
    // Joins the group of `addresses` (every leader's, in leader order; mine at `me`), waiting
    // at most `timeoutSec`. False with *why if it failed.
    bool join(const std::vector<std::vector<char>>& addresses, int me, double timeoutSec, std::string* why);
    const OffloadCaps& caps() const { return caps_; }

    int isend(void* comm, bool local, const void* buf, size_t count, void* type, int peer, int tag,
              void** req) override {
        return pml_.isend(comm, local, buf, count, type, peer, tag, req);
    }
    int irecv(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag,
              void** req) override {
        return pml_.irecv(comm, local, buf, count, type, peer, tag, req);
    }
    int test(void* req, bool& done) override { return pml_.test(req, done); }
    void abandon(void* req) override { pml_.abandon(req); }
    int reduce(void* op, const void* src, void* dst, size_t count, void* type) override {
        return pml_.reduce(op, src, dst, count, type);
    }
    int copy(const void* src, size_t scount, void* stype, void* dst, size_t rcount, void* rtype) override {
        return pml_.copy(src, scount, stype, dst, rcount, rtype);
    }
    hieragg_dtype_info typeInfo(void* type) override { return pml_.typeInfo(type); }
    void* packedType() override { return pml_.packedType(); }
    void progress() override;

    int icollective(const FabricCollective& what, void** req) override;
    int testCollective(void* req, bool& done) override;
    void abandonCollective(void* req) override;

private:
    struct Op;
    void poll();      // reads completions (caller holds mutex_)
    void issueReady();  // starts queued operations whose turn it is (caller holds mutex_)
    int issue(Op& op);

    Transport& pml_;
    std::shared_ptr<Fabric> fabric_;
    fid_ep* ep_ = nullptr;
    fid_av* av_ = nullptr;
    fid_cq* cq_ = nullptr;
    fid_eq* eq_ = nullptr;
    fid_av_set* set_ = nullptr;
    fid_mc* mc_ = nullptr;
    uint64_t group_ = 0;  // fi_addr_t of the joined group
    OffloadCaps caps_;
    // A provider with triggered operations instead of collectives: this endpoint runs
    // triggered chain broadcasts (counters bound, selective completion), nothing else.
    std::unique_ptr<TriggeredChains> chains_;
    std::mutex mutex_;
    std::deque<Op*> queued_;  // not started yet, in firing order
    uint64_t serving_ = 0;    // the ticket whose operations may start
    bool broken_ = false;     // an operation was abandoned: the order can no longer be kept
};

}  // namespace hieragg::ofi
