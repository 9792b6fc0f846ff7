#include "ReproducibleCall.hpp"

#include <new>

namespace hieragg {

namespace {
bool isReduction(hieragg_coll_kind k) {
    return k == HIERAGG_REDUCE || k == HIERAGG_ALLREDUCE || k == HIERAGG_REDUCE_SCATTER ||
           k == HIERAGG_REDUCE_SCATTER_BLOCK || k == HIERAGG_SCAN || k == HIERAGG_EXSCAN;
}

std::unique_ptr<repro::Accumulator[]> allocate(size_t n) {
    return std::unique_ptr<repro::Accumulator[]>(new (std::nothrow) repro::Accumulator[n ? n : 1]);
}
}  // namespace

int AccumulatorTransport::reduce(void* op, const void* src, void* dst, size_t count, void* type) {
    (void)op;
    if (type != accType_) return HIERAGG_ERR_INTERNAL;  // recipes reduce on the call's type only
    repro::mergeAll(static_cast<const repro::Accumulator*>(src), static_cast<repro::Accumulator*>(dst), count);
    return 0;
}

bool ReproducibleCall::applies(const hieragg_coll_args& a, bool inter) {
    return !inter && isReduction(a.kind) &&
           (a.float_sum == HIERAGG_FLOAT_SUM_DOUBLE || a.float_sum == HIERAGG_FLOAT_SUM_FLOAT);
}

std::unique_ptr<ReproducibleCall> ReproducibleCall::prepare(const hieragg_coll_args& user, int rank, int size,
                                                            Transport& base, void* accType,
                                                            hieragg_complete_fn done, void* ctx) {
    std::unique_ptr<ReproducibleCall> rc(new (std::nothrow) ReproducibleCall(base, accType));
    if (!rc) return nullptr;
    rc->sumType_ = user.float_sum;
    rc->done_ = done;
    rc->ctx_ = ctx;

    // Elements contributed and elements of this rank's result, per collective.
    size_t inCount = user.scount, outCount = user.scount;
    bool hasResult = true;
    switch (user.kind) {
    case HIERAGG_REDUCE: hasResult = user.root == rank; break;
    case HIERAGG_EXSCAN: hasResult = rank != 0; break;  // rank 0's result is undefined
    case HIERAGG_REDUCE_SCATTER_BLOCK:
        inCount = user.rcount * static_cast<size_t>(size);
        outCount = user.rcount;
        break;
    case HIERAGG_REDUCE_SCATTER:
        inCount = 0;
        for (int r = 0; r < size; ++r) inCount += static_cast<size_t>(user.rcounts[r]);
        outCount = static_cast<size_t>(user.rcounts[rank]);
        break;
    default: break;
    }
    const void* contribution = user.in_place ? user.rbuf : user.sbuf;
    rc->in_ = allocate(inCount);
    rc->out_ = allocate(outCount);
    if (!rc->in_ || !rc->out_) return nullptr;
    if (rc->sumType_ == HIERAGG_FLOAT_SUM_DOUBLE)
        repro::fromDoubles(static_cast<const double*>(contribution), inCount, rc->in_.get());
    else
        repro::fromFloats(static_cast<const float*>(contribution), inCount, rc->in_.get());

    hieragg_coll_args& a = rc->args_;
    a = user;
    a.sbuf = rc->in_.get();
    a.in_place = 0;
    // A reduce's non-root receive buffer is not significant: keep it absent.
    a.rbuf = (user.kind == HIERAGG_REDUCE && !hasResult) ? nullptr : rc->out_.get();
    a.stype = a.rtype = accType;
    a.op = nullptr;  // AccumulatorTransport::reduce does not need one
    a.op_commutative = 1;
    a.float_sum = HIERAGG_FLOAT_SUM_NONE;
    if (hasResult) {
        rc->userOut_ = user.rbuf;
        rc->outCount_ = outCount;
    }
    return rc;
}

void ReproducibleCall::writeResult() {
    if (!userOut_) return;
    if (sumType_ == HIERAGG_FLOAT_SUM_DOUBLE)
        repro::toDoubles(out_.get(), outCount_, static_cast<double*>(userOut_));
    else
        repro::toFloats(out_.get(), outCount_, static_cast<float*>(userOut_));
}

void ReproducibleCall::complete(void* self, int status) {
    std::unique_ptr<ReproducibleCall> rc(static_cast<ReproducibleCall*>(self));
    if (status == 0) rc->writeResult();
    const hieragg_complete_fn done = rc->done_;
    void* ctx = rc->ctx_;
    rc.reset();  // accumulators are released before the caller learns the call is over
    done(ctx, status);
}

}  // namespace hieragg
