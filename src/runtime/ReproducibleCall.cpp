#include "ReproducibleCall.hpp"

#include <algorithm>
#include <new>
#include <utility>

#include "hieragg/hier/CollectiveFacts.hpp"

namespace hieragg {

namespace {

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
    return !inter && hier::isReduction(a.kind) &&
           (a.float_sum == HIERAGG_FLOAT_SUM_DOUBLE || a.float_sum == HIERAGG_FLOAT_SUM_FLOAT);
}

namespace {
// Accumulators one chunk may hold per buffer, in segments (1 MiB at the default 64 KiB).
constexpr size_t kChunkBudgetSegments = 16;
// Chunks per call at most: their links take call numbers from a per-pair window of 65536.
constexpr size_t kMaxChunks = 4096;
static_assert(ReproducibleCall::kMaxLinks == 2 * kMaxChunks, "an allreduce chunk is two links");
}  // namespace

std::unique_ptr<ReproducibleCall> ReproducibleCall::create(OwnedCallArgs held, int rank, int size,
                                                           size_t segmentBytes, Transport& base, void* accType,
                                                           hieragg_complete_fn done, void* ctx) {
    std::unique_ptr<ReproducibleCall> rc(new (std::nothrow) ReproducibleCall(base, accType));
    if (!rc) return nullptr;
    rc->held_ = std::move(held);
    rc->user_ = rc->held_.args();
    const hieragg_coll_args& user = rc->user_;
    rc->rank_ = rank;
    rc->size_ = size;
    rc->done_ = done;
    rc->ctx_ = ctx;
    const bool blocked = user.kind == HIERAGG_REDUCE_SCATTER_BLOCK || user.kind == HIERAGG_REDUCE_SCATTER;
    switch (user.kind) {
    case HIERAGG_REDUCE: rc->hasResult_ = user.root == rank; break;
    case HIERAGG_EXSCAN: rc->hasResult_ = rank != 0; break;  // rank 0's result is undefined
    default: break;
    }
    if (user.kind == HIERAGG_REDUCE_SCATTER_BLOCK) {
        rc->total_ = user.rcount;
    } else if (user.kind == HIERAGG_REDUCE_SCATTER) {
        rc->blockStart_.resize(size);
        rc->chunkCounts_.resize(size);
        size_t at = 0;
        for (int b = 0; b < size; ++b) {
            rc->blockStart_[b] = static_cast<int>(at);
            at += static_cast<size_t>(user.rcounts[b]);
            rc->total_ = std::max(rc->total_, static_cast<size_t>(user.rcounts[b]));
        }
    } else {
        rc->total_ = user.scount;
    }
    // Short allreduces stay one call: two would double the latency for little traffic saved.
    rc->splitAllreduce_ = user.kind == HIERAGG_ALLREDUCE && rc->total_ * sizeof(repro::Accumulator) >= segmentBytes;
    // Input of one chunk: len elements of every block (one block unless reduce_scatter*).
    const size_t budget = std::max<size_t>(1, kChunkBudgetSegments * segmentBytes / sizeof(repro::Accumulator));
    const size_t blocks = blocked ? static_cast<size_t>(size) : 1;
    rc->len_ = std::max<size_t>(1, budget / blocks);
    rc->len_ = std::max(rc->len_, (rc->total_ + kMaxChunks - 1) / kMaxChunks);
    rc->chunks_ = rc->total_ == 0 ? 1 : (rc->total_ + rc->len_ - 1) / rc->len_;
    const size_t perChunk = std::min(rc->len_, std::max<size_t>(rc->total_, 1));
    rc->in_ = allocate(perChunk * blocks);
    rc->out_ = allocate(perChunk);
    if (!rc->in_ || !rc->out_) return nullptr;
    return rc;
}

// Converts chunk k of this rank's contribution and points args_ at it.
void ReproducibleCall::prepareChunk(size_t k) {
    const hieragg_coll_args& u = user_;
    const void* contribution = u.in_place ? u.rbuf : u.sbuf;
    const size_t first = k * len_;
    const size_t len = total_ > first ? std::min(len_, total_ - first) : 0;
    auto convert = [&](size_t from, size_t n, repro::Accumulator* to) {
        if (u.float_sum == HIERAGG_FLOAT_SUM_DOUBLE)
            repro::fromDoubles(static_cast<const double*>(contribution) + from, n, to);
        else
            repro::fromFloats(static_cast<const float*>(contribution) + from, n, to);
    };
    args_ = u;
    if (u.kind == HIERAGG_REDUCE_SCATTER_BLOCK) {
        for (int b = 0; b < size_; ++b) convert(b * u.rcount + first, len, in_.get() + b * len);
        args_.rcount = args_.scount = len;
    } else if (u.kind == HIERAGG_REDUCE_SCATTER) {
        size_t at = 0;
        for (int b = 0; b < size_; ++b) {
            const size_t block = static_cast<size_t>(u.rcounts[b]);
            const size_t n = block > first ? std::min(len_, block - first) : 0;
            chunkCounts_[b] = static_cast<int>(n);
            convert(static_cast<size_t>(blockStart_[b]) + first, n, in_.get() + at);
            at += n;
        }
        args_.rcounts = chunkCounts_.data();
    } else {
        convert(first, len, in_.get());
        args_.scount = args_.rcount = len;
    }
    args_.sbuf = in_.get();
    args_.in_place = 0;
    // A reduce's non-root receive buffer is not significant: keep it absent.
    args_.rbuf = (u.kind == HIERAGG_REDUCE && !hasResult_) ? nullptr : out_.get();
    args_.stype = args_.rtype = transport_.accumulatorType();
    args_.op = nullptr;  // AccumulatorTransport::reduce does not need one
    args_.op_commutative = 1;
    args_.float_sum = HIERAGG_FLOAT_SUM_NONE;
}

// Rounds chunk k's result into the caller's buffer (element k * len_ on).
void ReproducibleCall::writeChunk(size_t k) {
    if (!hasResult_ || !user_.rbuf) return;
    const size_t first = k * len_;
    size_t n;
    if (user_.kind == HIERAGG_REDUCE_SCATTER) {
        n = static_cast<size_t>(chunkCounts_[rank_]);
    } else {
        n = total_ > first ? std::min(len_, total_ - first) : 0;
    }
    if (user_.float_sum == HIERAGG_FLOAT_SUM_DOUBLE)
        repro::toDoubles(out_.get(), n, static_cast<double*>(user_.rbuf) + first);
    else
        repro::toFloats(out_.get(), n, static_cast<float*>(user_.rbuf) + first);
}

// Allreduce runs each chunk as a reduce of accumulators to rank 0, which rounds,
// then a broadcast of the rounded doubles/floats: a quarter (an eighth) of the
// accumulator bytes on the way down, and one rounding pass instead of one per rank.
void ReproducibleCall::prepareBroadcast(size_t k) {
    const size_t first = k * len_;
    const size_t len = total_ > first ? std::min(len_, total_ - first) : 0;
    const size_t elem = user_.float_sum == HIERAGG_FLOAT_SUM_DOUBLE ? sizeof(double) : sizeof(float);
    args_ = user_;
    args_.kind = HIERAGG_BCAST;
    args_.sbuf = nullptr;
    args_.rbuf = static_cast<char*>(user_.rbuf) + first * elem;
    args_.in_place = 0;
    args_.scount = args_.rcount = len;
    args_.stype = args_.rtype = user_.rtype;  // the caller's MPI_DOUBLE / MPI_FLOAT
    args_.root = 0;
    args_.op = nullptr;
    args_.float_sum = HIERAGG_FLOAT_SUM_NONE;
}

int ReproducibleCall::startLink() {
    if (broadcastPhase_) {
        prepareBroadcast(next_);
    } else {
        prepareChunk(next_);
        if (splitAllreduce_) {
            args_.kind = HIERAGG_REDUCE;
            args_.root = 0;
            if (rank_ != 0) args_.rbuf = nullptr;
        }
    }
    const size_t link = next_ * linksPerChunk() + (broadcastPhase_ ? 1 : 0);
    syncDone_ = false;
    starting_ = true;
    const int rc = start_(args_, transport_, link, chunkDone, this);
    starting_ = false;
    return rc;
}

int ReproducibleCall::run(LinkStart start) {
    start_ = std::move(start);
    next_ = 0;
    broadcastPhase_ = false;
    if (int rc = startLink()) return rc;
    if (syncDone_) advance(syncStatus_);  // may complete the whole chain (and release this)
    return 0;
}

void ReproducibleCall::chunkDone(void* self, int status) {
    auto* rc = static_cast<ReproducibleCall*>(self);
    if (rc->starting_) {  // finished inside its own start: the starter continues the chain
        rc->syncDone_ = true;
        rc->syncStatus_ = status;
        return;
    }
    rc->advance(status);
}

// A loop, not recursion: links that finish inside their start continue here.
void ReproducibleCall::advance(int status) {
    for (;;) {
        if (status != 0) return finish(status);
        if (splitAllreduce_ && !broadcastPhase_) {
            if (rank_ == 0) writeChunk(next_);  // round once, then broadcast the result
            broadcastPhase_ = true;
        } else {
            if (!splitAllreduce_) writeChunk(next_);
            broadcastPhase_ = false;
            if (++next_ == chunks_) return finish(0);
        }
        if (int rc = startLink()) return finish(rc);
        if (!syncDone_) return;
        status = syncStatus_;
    }
}

void ReproducibleCall::finish(int status) {
    const hieragg_complete_fn done = done_;
    void* ctx = ctx_;
    delete this;  // accumulators are released before the caller learns the call is over
    done(ctx, status);
}

}  // namespace hieragg
