// The Transport the core uses inside Open MPI: every call goes through the
// shim's callback table (the PML, the datatype engine, ompi_op_reduce).
#pragma once
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
    // One crossing instead of a post and a test when the shim provides it (abi.h isend_released).
    int isendReleased(void* comm, bool local, const void* buf, size_t count, void* type, int peer, int tag,
                      void** req) override {
        if (!cb_.isend_released) return Transport::isendReleased(comm, local, buf, count, type, peer, tag, req);
        return cb_.isend_released(comm, local, buf, count, type, peer, tag, req);
    }
    int irecvReleased(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag,
                      void** req) override {
        if (!cb_.irecv_released) return Transport::irecvReleased(comm, local, buf, count, type, peer, tag, req);
        return cb_.irecv_released(comm, local, buf, count, type, peer, tag, req);
    }
    int test(void* req, bool& done) override {
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
    hieragg_transport cb_;
};

}  // namespace hieragg
