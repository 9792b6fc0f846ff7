// A fake PML over the simulated network, for CompiledCall's direct path (PmlDirect): a
// PmlTransport per rank whose table holds the PML's entry points (abi.h pml_isend,
// pml_irecv) and a request layout as the shim describes Open MPI's (done word, status error,
// req_free). Each post goes into the rank's SimTransport; its request is a FakeRequest whose
// done word is set when the simulated message ends: at once when it ended inside its post,
// else by progress() (as Open MPI's progress engine completes a request). Every request must
// be released exactly once, after it ended (releasedOnce() says whether that held). With
// `emptySends`, a send that ended inside its post returns the fake's one empty request
// instead (abi.h request_empty, Open MPI's &ompi_request_empty), which must never be released.
#pragma once
#include <deque>
#include <memory>
#include <vector>

#include "../../src/transports/pml/PmlTransport.hpp"
#include "hieragg/SimNetwork.hpp"

namespace hieragg {
namespace testing {

class PmlOverSim {
public:
    PmlOverSim(sim::SimNetwork& net, sim::SimComm& comm, bool emptySends = false)
        : net_(net), comm_(comm), emptySends_(emptySends) {
        current() = this;
        empty_.done = &kEnded;
        empty_.release = releaseEmpty;
        for (int r = 0; r < net.size(); ++r) {
            ranks_.push_back(RankComm{r, &comm_});
            transports_.push_back(std::make_unique<PmlTransport>(table()));
        }
    }
    ~PmlOverSim() { current() = nullptr; }
    PmlOverSim(const PmlOverSim&) = delete;
    PmlOverSim& operator=(const PmlOverSim&) = delete;

    PmlTransport& transport(int rank) { return *transports_[rank]; }
    // The communicator handle a compiled call of `rank` binds (the PML's comm argument).
    void* comm(int rank) { return &ranks_[rank]; }
    // Completes the requests whose simulated message ended (their done word).
    void progress() {
        for (FakeRequest& f : requests_)
            if (!f.released && f.done != &kEnded) {
                bool done = false;
                f.error = net_.transport(f.rank).test(f.sim, done);
                if (done || f.error) f.done = &kEnded;
            }
    }
    size_t posts() const { return requests_.size(); }
    // Every request was released once, after it ended (and never before).
    bool releasedOnce() const {
        if (badRelease_) return false;
        for (const FakeRequest& f : requests_)
            if (!f.released) return false;
        return true;
    }
    // Posts that ended inside themselves (released by the post, not by a test).
    size_t endedInPost() const { return endedInPost_; }
    // Sends that returned the empty request (emptySends), and its releases (must be none).
    size_t emptyReturned() const { return emptyReturned_; }
    size_t emptyReleases() const { return emptyReleases_; }

private:
    struct RankComm {
        int rank;
        sim::SimComm* comm;
    };
    struct FakeRequest {
        long pad = 3;
        const void* volatile done = nullptr;  // the done word
        int error = 0;                        // the status's error
        hieragg_request_free_fn release = nullptr;
        void* sim = nullptr;
        int rank = 0;
        bool released = false;
    };
    static inline const int kEnded = 1;  // its address: the done word's "ended" value
    static PmlOverSim*& current() {
        static PmlOverSim* p = nullptr;
        return p;
    }
    static ompi_request_t* handle(FakeRequest* f) { return reinterpret_cast<ompi_request_t*>(f); }

    hieragg_transport table() {
        hieragg_transport t{};
        t.pml_isend = isend;
        t.pml_irecv = irecv;
        t.pml_send_standard = 1;
        t.request_done_offset = offsetof(FakeRequest, done);
        t.request_done_value = &kEnded;
        t.request_error_offset = offsetof(FakeRequest, error);
        t.request_free_offset = offsetof(FakeRequest, release);
        if (emptySends_) t.request_empty = handle(&empty_);
        t.reduce = [](void* op, const void* src, void* dst, size_t count, void* type) {
            return current()->net_.transport(0).reduce(op, src, dst, count, type);
        };
        t.copy = [](const void* src, size_t scount, void* stype, void* dst, size_t rcount, void* rtype) {
            return current()->net_.transport(0).copy(src, scount, stype, dst, rcount, rtype);
        };
        return t;
    }
    // A post of `rank`'s simulated transport made into a request laid out as Open MPI's.
    int made(int rank, bool send, int rc, void* sim, ompi_request_t** req) {
        if (rc != 0) return rc;
        if (send && !sim && emptySends_) {  // ended inside its post: the PML's empty request
            ++emptyReturned_;
            *req = handle(&empty_);
            return 0;
        }
        requests_.emplace_back();
        FakeRequest& f = requests_.back();
        f.release = release;
        f.sim = sim;
        f.rank = rank;
        if (!sim) {  // ended inside its post (the simulator's released post)
            f.done = &kEnded;
            ++endedInPost_;
        }
        *req = handle(&f);
        return 0;
    }
    static int isend(const void* buf, size_t count, ompi_datatype_t* type, int peer, int tag, hieragg_pml_send_mode,
                     ompi_communicator_t* comm, ompi_request_t** req) {
        const RankComm& c = *reinterpret_cast<RankComm*>(comm);
        void* sim = nullptr;
        const int rc = current()->net_.transport(c.rank).isendReleased(c.comm, false, buf, count, type, peer, tag, &sim);
        return current()->made(c.rank, true, rc, sim, req);
    }
    static int irecv(void* buf, size_t count, ompi_datatype_t* type, int peer, int tag, ompi_communicator_t* comm,
                     ompi_request_t** req) {
        const RankComm& c = *reinterpret_cast<RankComm*>(comm);
        void* sim = nullptr;
        const int rc = current()->net_.transport(c.rank).irecvReleased(c.comm, false, buf, count, type, peer, tag, &sim);
        return current()->made(c.rank, false, rc, sim, req);
    }
    static int release(ompi_request_t** req) {
        FakeRequest* f = reinterpret_cast<FakeRequest*>(*req);
        if (f->released || f->done != &kEnded) current()->badRelease_ = true;
        f->released = true;
        *req = nullptr;  // Open MPI sets MPI_REQUEST_NULL
        return 0;
    }
    static int releaseEmpty(ompi_request_t** req) {
        ++current()->emptyReleases_;
        *req = nullptr;
        return 0;
    }

    sim::SimNetwork& net_;
    sim::SimComm& comm_;
    std::vector<RankComm> ranks_;
    std::vector<std::unique_ptr<PmlTransport>> transports_;
    std::deque<FakeRequest> requests_;  // (a deque: the handles stay valid)
    size_t endedInPost_ = 0;
    bool badRelease_ = false;
    bool emptySends_ = false;
    FakeRequest empty_;  // the empty request (emptySends)
    size_t emptyReturned_ = 0, emptyReleases_ = 0;
};

}  // namespace testing
}  // namespace hieragg
