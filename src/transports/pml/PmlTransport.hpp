// The Transport the core uses inside Open MPI: every call goes through the
// shim's callback table (the PML, the datatype engine, ompi_op_reduce), except a
// communicator's messages and the tests of requests when the shim gave the PML's own entry
// points and the request's layout (abi.h pml_isend): those go straight to the PML.
#pragma once
#include <atomic>

#include "hieragg/Transport.hpp"

namespace hieragg {

// The PML's own entry points and its requests' layout (abi.h pml_isend), when the shim gave
// them: a message is posted straight into the PML and its request tested and released here,
// as the shim's isend_released, test and ompi_request_free do. PmlTransport posts through it;
// CompiledCall takes it once per transport and posts its messages through it without going
// through the Transport at all. Everything inline: a frame here would cost what the shim's did.
struct PmlDirect {
    hieragg_pml_isend_fn isend = nullptr;
    hieragg_pml_irecv_fn irecv = nullptr;
    hieragg_pml_send_mode standard = 0;  // MCA_PML_BASE_SEND_STANDARD
    size_t doneOffset = 0;               // the request's done word: ended when it holds doneValue
    const void* doneValue = nullptr;
    size_t errorOffset = 0;  // the status's error (an int)
    size_t freeOffset = 0;   // req_free (a hieragg_request_free_fn)
    // The PML's request for a send that ended inside its post (abi.h request_empty): done,
    // never released. Null: none.
    const void* empty = nullptr;

    PmlDirect() = default;
    explicit PmlDirect(const hieragg_transport& cb)
        : isend(cb.pml_isend),
          irecv(cb.pml_irecv),
          standard(cb.pml_send_standard),
          doneOffset(cb.request_done_offset),
          doneValue(cb.request_done_value),
          errorOffset(cb.request_error_offset),
          freeOffset(cb.request_free_offset),
          empty(cb.request_empty) {}

    // The request's done word says it ended (the status is read after it).
    __attribute__((always_inline)) bool ended(void* req) const {
        const bool e =
            *reinterpret_cast<const void* const volatile*>(static_cast<char*>(req) + doneOffset) == doneValue;
        std::atomic_thread_fence(std::memory_order_acquire);
        return e;
    }
    // Releases an ended request (req_free); returns its status's error.
    __attribute__((always_inline)) int release(void* req) const {
        char* r = static_cast<char*>(req);
        const int err = *reinterpret_cast<const int*>(r + errorOffset);
        ompi_request_t* handle = static_cast<ompi_request_t*>(req);
        (*reinterpret_cast<const hieragg_request_free_fn*>(r + freeOffset))(&handle);
        return err;
    }
    // Tests a posted request: not ended (done false, 0), or ended and released (done true,
    // its status's error).
    __attribute__((always_inline)) int test(void* req, bool& done) const {
        done = ended(req);
        return done ? release(req) : 0;
    }
    // Posts a send (recv false) or a receive of a communicator's message; *req is the request,
    // or null when the message ended inside its post (then released, its status returned; or,
    // the PML's empty request, done with success and not released: abi.h request_empty).
    __attribute__((always_inline)) int post(bool recv, void* comm, const void* buf, size_t count, void* type,
                                            int peer, int tag, void** req) const {
        ompi_request_t* r = nullptr;
        const int rc = recv ? irecv(const_cast<void*>(buf), count, static_cast<ompi_datatype_t*>(type), peer, tag,
                                    static_cast<ompi_communicator_t*>(comm), &r)
                            : isend(buf, count, static_cast<ompi_datatype_t*>(type), peer, tag, standard,
                                    static_cast<ompi_communicator_t*>(comm), &r);
        if (rc == 0 && r == empty) {  // (both null: no request, 0, as below)
            *req = nullptr;
            return 0;
        }
        *req = r;
        if (rc != 0 || !r || !ended(r)) return rc;
        *req = nullptr;
        return release(r);
    }
};

class PmlTransport final : public Transport {
public:
    explicit PmlTransport(const hieragg_transport& cb) : cb_(cb), direct_(cb) {}
    int isend(void* comm, bool local, const void* buf, size_t count, void* type, int peer, int tag,
              void** req) override {
        return cb_.isend(comm, local, buf, count, type, peer, tag, req);
    }
    int irecv(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag,
              void** req) override {
        return cb_.irecv(comm, local, buf, count, type, peer, tag, req);
    }
    // Straight into the PML when the shim gave its entry points (abi.h pml_isend: no frame of
    // the shim per message), else one crossing instead of a post and a test when the shim
    // provides it (abi.h isend_released).
    // Inline (where the caller names PmlTransport): a frame here would cost what the shim's did.
    __attribute__((always_inline)) int isendReleased(void* comm, bool local, const void* buf, size_t count,
                                                     void* type, int peer, int tag, void** req) override {
        if (direct_.isend && !local) return direct_.post(false, comm, buf, count, type, peer, tag, req);
        if (!cb_.isend_released) return Transport::isendReleased(comm, local, buf, count, type, peer, tag, req);
        return cb_.isend_released(comm, local, buf, count, type, peer, tag, req);
    }
    __attribute__((always_inline)) int irecvReleased(void* comm, bool local, void* buf, size_t count, void* type,
                                                     int peer, int tag, void** req) override {
        if (direct_.irecv && !local) return direct_.post(true, comm, buf, count, type, peer, tag, req);
        if (!cb_.irecv_released) return Transport::irecvReleased(comm, local, buf, count, type, peer, tag, req);
        return cb_.irecv_released(comm, local, buf, count, type, peer, tag, req);
    }
    __attribute__((always_inline)) int test(void* req, bool& done) override {
        if (direct_.isend) return direct_.test(req, done);  // the request's layout is known (abi.h pml_isend)
        int d = 0;
        int rc = cb_.test(req, &d);
        done = d != 0;
        return rc;
    }
    void abandon(void* req) override { cb_.abandon(req); }
    bool cancelFailed(void* req) override {
        if (!cb_.cancel_failed) return Transport::cancelFailed(req);
        return cb_.cancel_failed(req) != 0;
    }
    int reduce(void* op, const void* src, void* dst, size_t count, void* type) override {
        return cb_.reduce(op, src, dst, count, type);
    }
    int copy(const void* src, size_t scount, void* stype, void* dst, size_t rcount, void* rtype) override {
        return cb_.copy(src, scount, stype, dst, rcount, rtype);
    }
    hieragg_dtype_info typeInfo(void* type) override {
        hieragg_dtype_info info{};
        cb_.dtype_info(type, &info);
        return info;
    }
    void* packedType() override { return cb_.packed_type; }
    void* accumulatorType() const { return cb_.accumulator_type; }
    void progress() override { cb_.progress(); }
    bool doneWord(size_t& offset, const void*& value) const override {
        offset = cb_.request_done_offset;
        value = cb_.request_done_value;
        return offset != 0;
    }
    // Offload: the element kind of dtype's signature and the kind of op (abi.h).
    void numericKind(void* type, void* op, int& elem, int& opKind) const {
        elem = opKind = 0;
        if (cb_.numeric_kind) cb_.numeric_kind(type, op, &elem, &opKind);
    }
    void output(int level, const std::string& msg) const {
        if (cb_.output) cb_.output(level, msg.c_str());
    }

    // The PML's entry points for CompiledCall, null when the shim gave none (under ULFM).
    const PmlDirect* direct() const { return direct_.isend && direct_.irecv ? &direct_ : nullptr; }

private:
    hieragg_transport cb_;
    PmlDirect direct_;
};

}  // namespace hieragg
