// coll_hieragg_reproducible=strong around one reduction call: MPI_SUM of
// MPI_DOUBLE or MPI_FLOAT runs as a reduction of repro::Accumulators. At the
// start the caller's contributions become accumulators, the unchanged recipes
// and schedules move and combine 32-byte accumulator elements (the shim's
// accumulator datatype; the Task's reduce steps land in merge() through
// AccumulatorTransport), and at completion the result is rounded once into the
// caller's buffer. The combine is associative and commutative bit for bit, so
// the result does not depend on the decomposition, tree, root or placement.
#pragma once
#include <memory>

#include "hieragg/ReproducibleSum.hpp"
#include "hieragg/Transport.hpp"
#include "hieragg/abi.h"

namespace hieragg {

// Every call forwards to the real transport, except reduce: it merges accumulators.
class AccumulatorTransport final : public Transport {
public:
    AccumulatorTransport(Transport& base, void* accumulatorType) : base_(base), accType_(accumulatorType) {}
    int isend(void* comm, bool local, const void* buf, size_t count, void* type, int peer, int tag,
              void** req) override {
        return base_.isend(comm, local, buf, count, type, peer, tag, req);
    }
    int irecv(void* comm, bool local, void* buf, size_t count, void* type, int peer, int tag,
              void** req) override {
        return base_.irecv(comm, local, buf, count, type, peer, tag, req);
    }
    int test(void* req, bool& done) override { return base_.test(req, done); }
    void abandon(void* req) override { base_.abandon(req); }
    int reduce(void* op, const void* src, void* dst, size_t count, void* type) override;
    int copy(const void* src, size_t scount, void* stype, void* dst, size_t rcount, void* rtype) override {
        return base_.copy(src, scount, stype, dst, rcount, rtype);
    }
    hieragg_dtype_info typeInfo(void* type) override { return base_.typeInfo(type); }
    void* packedType() override { return base_.packedType(); }
    void progress() override { base_.progress(); }

private:
    Transport& base_;
    void* accType_;
};

class ReproducibleCall {
public:
    // True if strong mode applies: MPI_SUM on double/float of a reduction on an intracommunicator.
    static bool applies(const hieragg_coll_args& a, bool inter);
    // Converts the caller's contributions; nullptr if memory ran out.
    static std::unique_ptr<ReproducibleCall> prepare(const hieragg_coll_args& user, int rank, int size,
                                                     Transport& base, void* accumulatorType,
                                                     hieragg_complete_fn done, void* ctx);
    // The call as the recipes run it: accumulators in, accumulators out.
    const hieragg_coll_args& args() const { return args_; }
    Transport& transport() { return transport_; }
    // Completion callback of the accumulator call (ctx = the ReproducibleCall, released
    // here): rounds the result into the caller's buffer, then completes the caller's call.
    static void complete(void* self, int status);

private:
    ReproducibleCall(Transport& base, void* accType) : transport_(base, accType) {}
    void writeResult();

    AccumulatorTransport transport_;
    hieragg_coll_args args_{};
    int sumType_ = 0;             // HIERAGG_FLOAT_SUM_*
    void* userOut_ = nullptr;     // where the rounded result goes (nullptr: nowhere)
    size_t outCount_ = 0;
    std::unique_ptr<repro::Accumulator[]> in_, out_;
    hieragg_complete_fn done_ = nullptr;
    void* ctx_ = nullptr;
};

}  // namespace hieragg
