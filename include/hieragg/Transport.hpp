// What a Task needs from the world: point-to-point messages, local copies and
// reductions on typed buffers. PmlTransport (Open MPI) and SimTransport
// (in-process simulator) implement it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "hieragg/abi.h"

namespace hieragg {

// A collective the transport runs itself over the group it joined for the communicator's
// leader space (offload, SPEC 3.3; docs/offload.md). Members are numbered in the leader
// space's order; `root` is a member index. Bcast moves `count` bytes; allreduce `count`
// elements of `elem` (HIERAGG_ELEM_*) combined by `op` (HIERAGG_OPK_*) from src into dst.
// TriggeredChainBcast moves `count` bytes of dst down the chain of members starting at
// `root`, in segments of `segment` bytes that relays forward by triggered sends.
enum class FabricKind : uint8_t { Barrier, Bcast, Allreduce, TriggeredChainBcast };
// Bytes of one HIERAGG_ELEM_* element (0 for NONE).
inline size_t elemKindBytes(int elem) {
    switch (elem) {
    case HIERAGG_ELEM_INT8: case HIERAGG_ELEM_UINT8: return 1;
    case HIERAGG_ELEM_INT16: case HIERAGG_ELEM_UINT16: return 2;
    case HIERAGG_ELEM_INT32: case HIERAGG_ELEM_UINT32: case HIERAGG_ELEM_FLOAT: return 4;
    case HIERAGG_ELEM_INT64: case HIERAGG_ELEM_UINT64: case HIERAGG_ELEM_DOUBLE: return 8;
    default: return 0;
    }
}
struct FabricCollective {
    FabricKind kind = FabricKind::Barrier;
    const void* src = nullptr;
    void* dst = nullptr;
    size_t count = 0;
    int elem = 0, op = 0, root = 0;
    size_t segment = 0;  // TriggeredChainBcast: bytes per segment
    // Every member must start the group's operations in the same order: a call's
    // operations carry its ticket (taken in call order) and the last one says so.
    uint64_t ticket = 0;
    bool lastOfTicket = true;
};

// Triggered chains (docs/offload.md): segments are at least this long (shorter messages go
// whole) and a message is cut into at most this many (a segment's index is in its tag).
constexpr size_t kTriggeredMinSegment = 4096;
constexpr size_t kTriggeredMaxSegments = 4096;

class Transport {
public:
    virtual ~Transport() = default;
    virtual int isend(void* comm, bool local, const void* buf, size_t count, void* type, int peer,
                      int tag, void** req) = 0;
    virtual int irecv(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag,
                      void** req) = 0;
    // Sets done; a finished request is released, and so is one whose test returns an error.
    virtual int test(void* req, bool& done) = 0;
    // isend / irecv, releasing a request that ended at once: *req is then null and the
    // return code the message's status (abi.h isend_released), as a test right after the
    // post gives, which is what these do unless the transport knows better.
    virtual int isendReleased(void* comm, bool local, const void* buf, size_t count, void* type, int peer, int tag,
                              void** req) {
        return releasedIfEnded(isend(comm, local, buf, count, type, peer, tag, req), req);
    }
    virtual int irecvReleased(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag,
                              void** req) {
        return releasedIfEnded(irecv(comm, local, buf, count, type, peer, tag, req), req);
    }
    virtual void abandon(void* req) = 0;
    // A request of a failed call: true when it is released (as abandon), false when it
    // may still move data and must be tested until it ends (abi.h cancel_failed).
    virtual bool cancelFailed(void* req) {
        abandon(req);
        return true;
    }
    virtual int reduce(void* op, const void* src, void* dst, size_t count, void* type) = 0;
    virtual int copy(const void* src, size_t scount, void* stype, void* dst, size_t rcount,
                     void* rtype) = 0;
    virtual hieragg_dtype_info typeInfo(void* type) = 0;
    virtual void* packedType() = 0;
    // Drive whatever makes messages move (used only where the core must wait).
    virtual void progress() {}
    // Where a request of isend/irecv says it has ended, if the transport knows (abi.h
    // request_done_offset): while the word at `offset` of it differs from `value` it has
    // certainly not ended, and test() need not be called. False: always test().
    virtual bool doneWord(size_t& offset, const void*& value) const {
        (void)offset;
        (void)value;
        return false;
    }
    // Offloaded collectives (only transports that joined a group offer them).
    virtual int icollective(const FabricCollective& what, void** req) {
        (void)what;
        (void)req;
        return HIERAGG_ERR_UNSUPPORTED;
    }
    // Sets done; a finished request is released. An error completion returns non-zero.
    virtual int testCollective(void* req, bool& done) {
        (void)req;
        done = true;
        return HIERAGG_ERR_UNSUPPORTED;
    }
    virtual void abandonCollective(void* req) { (void)req; }
    // Background work that cannot wait for a call to test it (Runtime::addPoller); must not
    // drive the progress engine itself.
    virtual void pollBackground() {}
    // The process is finalizing and this transport's owner may never be destroyed: close
    // what would outlive the library (an offload provider's endpoint and threads), leaving
    // point-to-point requests alone.
    virtual void closeForExit() {}
    // The communicator is being freed: cancel receives posted only to listen (they would
    // keep Open MPI from destroying it); operations still in flight complete as usual.
    virtual void stopListening() {}
    // An offload transport whose leaders agreed the fabric failed: its fabric operations
    // now run over point-to-point (docs/offload.md, "Failure handling").
    virtual bool fellBack() { return false; }

protected:
    // *req tested once after a post that returned `rc`: released and null if it ended.
    int releasedIfEnded(int rc, void** req) {
        if (rc != 0 || !*req) return rc;
        bool done = false;
        rc = test(*req, done);
        if (rc != 0 || done) *req = nullptr;  // released by the test
        return rc;
    }
};

}  // namespace hieragg
