// A transport that adds to another one (the strong reductions' AccumulatorTransport, the
// offload endpoint over the PML): point-to-point, copies, reductions, type queries and
// progress go on to `next` unless the derived class overrides them. Base is Transport or
// an interface derived from it (OffloadEndpoint); what it does not list (collective steps,
// doneWord, ...) keeps Base's own behaviour.
#pragma once
#include "hieragg/Transport.hpp"

namespace hieragg {

template <class Base = Transport>
class ForwardingTransport : public Base {
public:
    explicit ForwardingTransport(Transport& next) : next_(next) {}
    int isend(void* comm, bool local, const void* buf, size_t count, void* type, int peer, int tag,
              void** req) override {
        return next_.isend(comm, local, buf, count, type, peer, tag, req);
    }
    int irecv(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag,
              void** req) override {
        return next_.irecv(comm, local, buf, count, type, peer, tag, req);
    }
    int test(void* req, bool& done) override { return next_.test(req, done); }
    void abandon(void* req) override { next_.abandon(req); }
    bool cancelFailed(void* req) override { return next_.cancelFailed(req); }
    int reduce(void* op, const void* src, void* dst, size_t count, void* type) override {
        return next_.reduce(op, src, dst, count, type);
    }
    int copy(const void* src, size_t scount, void* stype, void* dst, size_t rcount, void* rtype) override {
        return next_.copy(src, scount, stype, dst, rcount, rtype);
    }
    hieragg_dtype_info typeInfo(void* type) override { return next_.typeInfo(type); }
    void* packedType() override { return next_.packedType(); }
    void progress() override { next_.progress(); }

protected:
    Transport& next_;
};

}  // namespace hieragg
