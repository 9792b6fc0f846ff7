// The Transport the core uses inside Open MPI: every call goes through the
// shim's callback table (the PML, the datatype engine, ompi_op_reduce), except a
// communicator's messages and the tests of requests when the shim gave the PML's own entry
// points and the request's layout (abi.h pml_isend): those go straight to the PML.
#pragma once
#include <atomic>

#include "hieragg/Transport.hpp"

namespace hieragg {

class PmlTransport final : public Transport {
public:
    explicit PmlTransport(const hieragg_transport& cb) : cb_(cb) {}
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
        if (cb_.pml_isend && !local) {
            ompi_request_t* r = nullptr;
            const int rc = cb_.pml_isend(buf, count, static_cast<ompi_datatype_t*>(type), peer, tag,
                                         cb_.pml_send_standard, static_cast<ompi_communicator_t*>(comm), &r);
            *req = r;
            return releasedIfEnded(rc, req);
        }
        if (!cb_.isend_released) return Transport::isendReleased(comm, local, buf, count, type, peer, tag, req);
        return cb_.isend_released(comm, local, buf, count, type, peer, tag, req);
    }
    __attribute__((always_inline)) int irecvReleased(void* comm, bool local, void* buf, size_t count, void* type,
                                                     int peer, int tag, void** req) override {
        if (cb_.pml_irecv && !local) {
            ompi_request_t* r = nullptr;
            const int rc = cb_.pml_irecv(buf, count, static_cast<ompi_datatype_t*>(type), peer, tag,
                                         static_cast<ompi_communicator_t*>(comm), &r);
            *req = r;
            return releasedIfEnded(rc, req);
        }
        if (!cb_.irecv_released) return Transport::irecvReleased(comm, local, buf, count, type, peer, tag, req);
        return cb_.irecv_released(comm, local, buf, count, type, peer, tag, req);
    }
    __attribute__((always_inline)) int test(void* req, bool& done) override {
        if (cb_.pml_isend) {  // the request's layout is known (abi.h pml_isend): test it here
            done = ended(req);
            return done ? release(req) : 0;
        }
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

private:
    // With the PML's entry points (abi.h pml_isend): the request's done word, status error and
    // release, as the shim's REQUEST_COMPLETE, req_status.MPI_ERROR and ompi_request_free.
    __attribute__((always_inline)) bool ended(void* req) const {
        const bool e = *reinterpret_cast<const void* const volatile*>(static_cast<char*>(req) +
                                                                      cb_.request_done_offset) == cb_.request_done_value;
        std::atomic_thread_fence(std::memory_order_acquire);  // the status is read after the done word
        return e;
    }
    __attribute__((always_inline)) int release(void* req) const {
        char* r = static_cast<char*>(req);
        const int err = *reinterpret_cast<const int*>(r + cb_.request_error_offset);
        ompi_request_t* handle = static_cast<ompi_request_t*>(req);
        (*reinterpret_cast<const hieragg_request_free_fn*>(r + cb_.request_free_offset))(&handle);
        return err;
    }
    // A message that ended inside its post is released now, with its status, and *req set to
    // null (as the shim's isend_released does).
    __attribute__((always_inline)) int releasedIfEnded(int rc, void** req) const {
        if (rc != 0 || !*req || !ended(*req)) return rc;
        rc = release(*req);
        *req = nullptr;
        return rc;
    }

    hieragg_transport cb_;
};

}  // namespace hieragg
