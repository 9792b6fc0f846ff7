// What a Task needs from the world: point-to-point messages, local copies and
// reductions on typed buffers. PmlTransport (Open MPI) and SimTransport
// (in-process simulator) implement it.
#pragma once
#include <cstddef>

#include "hieragg/abi.h"

namespace hieragg {

class Transport {
public:
    virtual ~Transport() = default;
    virtual int isend(void* comm, bool local, const void* buf, size_t count, void* type, int peer,
                      int tag, void** req) = 0;
    virtual int irecv(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag,
                      void** req) = 0;
    // Sets done; a finished request is released.
    virtual int test(void* req, bool& done) = 0;
    virtual void abandon(void* req) = 0;
    virtual int reduce(void* op, const void* src, void* dst, size_t count, void* type) = 0;
    virtual int copy(const void* src, size_t scount, void* stype, void* dst, size_t rcount,
                     void* rtype) = 0;
    virtual hieragg_dtype_info typeInfo(void* type) = 0;
    virtual void* packedType() = 0;
    // Drive whatever makes messages move (used only where the core must wait).
    virtual void progress() {}
};

}  // namespace hieragg
