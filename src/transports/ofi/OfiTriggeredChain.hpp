// Triggered chain broadcasts over one communicator's leader endpoint (SPEC 3.3, ordered
// triggering; docs/offload.md): each relay pre-posts the receive of a segment and a send
// of the same bytes to its successor that the provider fires by itself (FI_TRIGGER) when
// the endpoint's receive counter reaches the segment's threshold, so forwarding needs no
// CPU. At most `window` segments per call are posted at a time (credits: a new one is
// posted when an old one completed), and calls run one after the other in ticket order,
// since the counters are the endpoint's and a threshold must count this call's receives
// only. The CPU reads the counters to top the window up and to see a call finish.
// Plain libfabric C API; the owner (OfiTransport) serialises every call with its mutex.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "hieragg/Transport.hpp"

struct fid_ep;
struct fid_domain;
struct fid_cntr;
struct fid_cq;

namespace hieragg::ofi {

class TriggeredChains {
public:
    // Segments of one call posted at a time (bounded by the provider's queue depth).
    static constexpr size_t kDefaultWindow = 8;

    TriggeredChains() = default;
    ~TriggeredChains();  // the endpoint must be closed first (it holds the counters)
    TriggeredChains(const TriggeredChains&) = delete;
    TriggeredChains& operator=(const TriggeredChains&) = delete;

    // Opens the send and receive counters and binds them to `ep` (before fi_enable);
    // `queueDepth` is the provider's tx/rx queue size. False with *why.
    bool bind(fid_domain* domain, fid_ep* ep, size_t queueDepth, std::string* why);
    // The members' addresses in leader order; mine is `me`.
    void setMembers(std::vector<uint64_t> members, int me);

    // A TriggeredChainBcast (Transport.hpp): queued, activated in ticket order.
    int start(const FabricCollective& what, void** req);
    int test(void* req, bool& done);
    void abandon(void* req);
    // The leaders re-run this call over the PML (a failure was agreed; OfiRecovery.cpp): a
    // queued call is dropped, an active one posts nothing more and stays active (the
    // provider holds its contexts; its buffers are the caller's to keep) until its counters
    // complete it or the endpoint closes. Unlike abandon, earlier calls still complete.
    void giveUp(void* req);
    // Reads the counters: finishes the active call, tops its window up, activates the next.
    void progress();
    // Error completions on the endpoint's queue (successes are not reported: selective
    // completion) fail the active call.
    void drain(fid_cq* cq);

private:
    struct Call;
    void activate();
    int post(Call& c, uint64_t recvDone, uint64_t sendDone);
    void finish(Call& c, int err);

    fid_ep* ep_ = nullptr;
    fid_cntr* recvCntr_ = nullptr;
    fid_cntr* sendCntr_ = nullptr;
    std::vector<uint64_t> members_;
    int me_ = -1;
    size_t window_ = kDefaultWindow;
    std::deque<Call*> queued_;   // started, waiting for their ticket (any order)
    Call* active_ = nullptr;     // the call whose operations are posted
    uint64_t serving_ = 0;       // ticket of the call that may be active
    uint64_t recvErrs_ = 0, sendErrs_ = 0;  // error counts seen so far
    bool broken_ = false;        // a call was abandoned or failed: tickets can no longer be served in order
};

}  // namespace hieragg::ofi
