// coll_hieragg_reproducible=strong around one reduction call: MPI_SUM of
// MPI_DOUBLE or MPI_FLOAT runs as a reduction of repro::Accumulators. At the
// start the caller's contributions become accumulators, the unchanged recipes
// and schedules move and combine 32-byte accumulator elements (the shim's
// accumulator datatype; the Task's reduce steps land in merge() through
// AccumulatorTransport), and at completion the result is rounded once into the
// caller's buffer. The combine is associative and commutative bit for bit, so
// the result does not depend on the decomposition, tree, root or placement.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "OwnedCallArgs.hpp"
#include "hieragg/ForwardingTransport.hpp"
#include "hieragg/ReproducibleSum.hpp"
#include "hieragg/Transport.hpp"
#include "hieragg/abi.h"

namespace hieragg {

// Every call forwards to the real transport, except reduce: it merges accumulators.
class AccumulatorTransport final : public ForwardingTransport<> {
public:
    AccumulatorTransport(Transport& base, void* accumulatorType)
        : ForwardingTransport(base), accType_(accumulatorType) {}
    int reduce(void* op, const void* src, void* dst, size_t count, void* type) override;
    void* accumulatorType() const { return accType_; }

private:
    void* accType_;
};

// Starts link `link` of the chain (0-based) on transport `tr` (CallLaunch.cpp's launchTask with
// the numbers the chain reserved); returns an error without calling `done` if nothing started.
using LinkStart = std::function<int(const hieragg_coll_args& args, Transport& tr, size_t link,
                                    hieragg_complete_fn done, void* ctx)>;

// Long vectors run as a chain of chunks, one accumulator call each (a link; an
// allreduce chunk is two links), so the conversion buffers stay bounded
// (kChunkBudgetSegments x segment size of accumulators) like the schedules' own
// temporaries. Every rank cuts the call into the same chunks; the caller reserves
// the links' call numbers when the chain is launched (CallLaunch.cpp), and each link
// starts when the previous one completed here.
class ReproducibleCall {
public:
    // True if strong mode applies: MPI_SUM on double/float of a reduction on an intracommunicator.
    static bool applies(const hieragg_coll_args& a, bool inter);
    // The most links a chain has (kMaxChunks chunks of two links): the call numbers it may
    // reserve on a pair (CallWindow.hpp).
    static constexpr size_t kMaxLinks = 2 * 4096;
    // Plans the chunks and allocates one chunk's buffers; nullptr if memory ran out. `user`:
    // the call's arguments, held until the last link has started (OwnedCallArgs.hpp).
    static std::unique_ptr<ReproducibleCall> create(OwnedCallArgs user, int rank, int size,
                                                    size_t segmentBytes, Transport& base, void* accumulatorType,
                                                    hieragg_complete_fn done, void* ctx);
    size_t chunks() const { return chunks_; }
    // Calls (links) the whole chain makes (allreduce: a reduce and a bcast per chunk).
    size_t links() const { return chunks_ * linksPerChunk(); }
    // Starts link 0 through `start` (link k later, from link k-1's completion). Returns an
    // error if link 0 could not start (then the caller still owns this object); otherwise
    // the chain owns itself and completes the caller's call once.
    int run(LinkStart start);

private:
    ReproducibleCall(Transport& base, void* accType) : transport_(base, accType) {}
    void prepareChunk(size_t k);
    void writeChunk(size_t k);
    void prepareBroadcast(size_t k);
    int startLink();  // starts the current link (chunk next_, reduce or broadcast phase)
    size_t linksPerChunk() const { return splitAllreduce_ ? 2 : 1; }
    void advance(int status);  // chunk next_ finished
    void finish(int status);   // completes the caller's call and releases this object
    static void chunkDone(void* self, int status);

    AccumulatorTransport transport_;
    OwnedCallArgs held_;           // what user_ points into
    hieragg_coll_args user_{}, args_{};
    int rank_ = 0, size_ = 1;
    bool hasResult_ = true;
    bool splitAllreduce_ = false;  // allreduce: reduce to rank 0, round there, broadcast
    bool broadcastPhase_ = false;
    size_t total_ = 0;   // elements per block (reduce_scatter: the largest block)
    size_t len_ = 1;     // elements per block and chunk
    size_t chunks_ = 1;
    size_t next_ = 0;    // chunk in flight
    std::vector<int> chunkCounts_, blockStart_;  // reduce_scatter
    std::unique_ptr<repro::Accumulator[]> in_, out_;
    LinkStart start_;
    bool starting_ = false, syncDone_ = false;
    int syncStatus_ = 0;
    hieragg_complete_fn done_ = nullptr;
    void* ctx_ = nullptr;
};

}  // namespace hieragg
