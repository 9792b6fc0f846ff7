// The C ABI (include/hieragg/abi.h) over the C++ core.
#include <cstring>
#include <new>
#include <stdexcept>

#include "CommState.hpp"
#include "ReproducibleCall.hpp"
#include "Runtime.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/Recipes.hpp"

using namespace hieragg;

namespace {

bool cacheable(hieragg_coll_kind k) {
    switch (k) {
    case HIERAGG_ALLGATHERV: case HIERAGG_ALLTOALLV: case HIERAGG_ALLTOALLW: case HIERAGG_GATHERV:
    case HIERAGG_SCATTERV: case HIERAGG_REDUCE_SCATTER: case HIERAGG_NEIGHBOR_ALLGATHER:
    case HIERAGG_NEIGHBOR_ALLGATHERV: case HIERAGG_NEIGHBOR_ALLTOALL: case HIERAGG_NEIGHBOR_ALLTOALLV:
    case HIERAGG_NEIGHBOR_ALLTOALLW:
        return false;
    default:
        return true;
    }
}

// Everything a cached schedule depends on: kind, root, counts, layouts, op kind,
// in-place and the algorithm override. Buffers and handles are bound per call.
std::string cacheKey(const CollCall& c) {
    struct Key {
        int kind, root, inPlace, commutative, algorithm;
        size_t scount, rcount, segment;
        hieragg_dtype_info s, r;
        int sbufNull, rbufNull;
    } k;
    std::memset(&k, 0, sizeof k);
    k.kind = c.args.kind;
    k.root = c.args.root;
    k.inPlace = c.args.in_place;
    k.commutative = c.args.op_commutative;
    k.algorithm = c.algorithm;
    k.scount = c.args.scount;
    k.rcount = c.args.rcount;
    k.segment = c.segmentBytes;
    k.s = c.stype;
    k.r = c.rtype;
    k.sbufNull = c.args.sbuf == nullptr;
    k.rbufNull = c.args.rbuf == nullptr;
    return std::string(reinterpret_cast<const char*>(&k), sizeof k);
}

constexpr size_t kCacheLimit = 128;

// seqOverride: a sequence number reserved earlier (chained calls), else the next one.
int startCall(hieragg_comm* c, const hieragg_coll_args* args, Transport& tr, hieragg_complete_fn done,
              void* ctx, const uint32_t* seqOverride = nullptr);

// coll_hieragg_reproducible=strong: MPI_SUM of doubles/floats runs on accumulators
// (ReproducibleCall converts at entry and rounds once at completion).
bool strongReproducible(const Runtime& rt, const hieragg_comm& c, const hieragg_coll_args& a) {
    return rt.config().reproducible == HIERAGG_REPRODUCIBLE_STRONG && ReproducibleCall::applies(a, c.inter);
}

int startAccumulatorChunk(void* comm, const hieragg_coll_args& a, Transport& tr, uint32_t seq,
                          hieragg_complete_fn done, void* ctx) {
    return startCall(static_cast<hieragg_comm*>(comm), &a, tr, done, ctx, &seq);
}

int startReproducible(Runtime& rt, hieragg_comm* c, const hieragg_coll_args* args, hieragg_complete_fn done,
                      void* ctx) {
    if (!rt.transport().accumulatorType()) {  // the shim could not create it: keep the job running
        rt.warnOnce("coll_hieragg_reproducible=strong: no accumulator datatype; reductions keep a fixed order only");
        return startCall(c, args, rt.transport(), done, ctx);
    }
    if (int rc = ensureDecomposition(*c)) return rc;
    const size_t segment = rt.config().segment_size ? rt.config().segment_size : 64 * 1024;
    std::unique_ptr<ReproducibleCall> rc = ReproducibleCall::create(
        *args, c->rank, c->size, segment, rt.transport(), rt.transport().accumulatorType(), done, ctx);
    if (!rc) return HIERAGG_ERR_NO_MEM;
    // Every rank reserves the same sequence numbers, one per chunk, now.
    const uint32_t seqBase = c->seq;
    c->seq += static_cast<uint32_t>(rc->sequenceNumbers());
    const int status = rc->run(startAccumulatorChunk, c, seqBase);
    if (status == 0) rc.release();  // the chain owns itself until it completes the call
    return status;
}

}  // namespace

extern "C" {

int hieragg_core_init(const hieragg_transport* transport, const hieragg_config* config) {
    try {
        return Runtime::init(*transport, *config);
    } catch (...) {
        return HIERAGG_ERR_NO_MEM;
    }
}

void hieragg_core_fini(void) { Runtime::fini(); }

hieragg_comm* hieragg_comm_create(void* comm, int rank, int size, int is_inter, int remote_size,
                                  int world_rank) {
    auto* c = new (std::nothrow) hieragg_comm;
    if (!c) return nullptr;
    c->comm = comm;
    c->rank = rank;
    c->size = size;
    c->inter = is_inter != 0;
    c->remoteSize = remote_size;
    c->worldRank = world_rank;
    return c;
}

void hieragg_comm_destroy(hieragg_comm* comm) { delete comm; }

int hieragg_start(hieragg_comm* c, const hieragg_coll_args* args, hieragg_complete_fn done, void* ctx) {
    Runtime* rt = Runtime::instance();
    if (!rt) return HIERAGG_ERR_INTERNAL;
    try {
        if (strongReproducible(*rt, *c, *args)) return startReproducible(*rt, c, args, done, ctx);
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    }
    return startCall(c, args, rt->transport(), done, ctx);
}

}  // extern "C"

namespace {

int startCall(hieragg_comm* c, const hieragg_coll_args* args, Transport& tr, hieragg_complete_fn done,
              void* ctx, const uint32_t* seqOverride) {
    Runtime* rt = Runtime::instance();
    try {
        if (int rc = ensureDecomposition(*c)) return rc;
        CollCall call;
        call.args = *args;
        call.rank = c->rank;
        call.size = c->size;
        call.inter = c->inter;
        call.remoteSize = c->remoteSize;
        call.hierarchy = c->hierarchy.get();
        call.segmentBytes = rt->config().segment_size ? rt->config().segment_size : 64 * 1024;
        call.algorithm = rt->config().algorithm[args->kind];
        describeTypes(call, tr);

        std::shared_ptr<const Schedule> sched;
        std::string key;
        if (cacheable(args->kind)) {
            key = cacheKey(call);
            auto it = c->cache.find(key);
            if (it != c->cache.end()) sched = it->second;
        }
        if (!sched) {
            sched = std::make_shared<const Schedule>(recipes::buildSchedule(call));
            if (sched->channels > kMaxChannels) return HIERAGG_ERR_INTERNAL;
            if (c->rank == 0 || c->inter)
                rt->verbose(2, std::string("hieragg: ") + hieragg_coll_name(args->kind) + " on " +
                                   std::to_string(c->size) + " ranks: " + sched->algorithm);
            if (!key.empty()) {
                if (c->cache.size() >= kCacheLimit) c->cache.clear();
                c->cache.emplace(key, sched);
            }
        }
        const uint32_t seq = seqOverride ? *seqOverride : c->seq++;
        auto task = std::make_unique<Task>(
            sched, tr, bindCall(call, tr, c->comm, tagBase(seq, false), tagBase(seq, true)));
        if (int rc = task->start()) return rc;
        rt->track(std::move(task), done, ctx);
        return 0;
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    } catch (const std::exception& e) {
        rt->warn(std::string("hieragg: ") + hieragg_coll_name(args->kind) + ": " + e.what());
        return HIERAGG_ERR_UNSUPPORTED;
    }
}

}  // namespace

extern "C" {

int hieragg_progress(void) {
    Runtime* rt = Runtime::instance();
    return rt ? rt->progress() : 0;
}

const char* hieragg_coll_name(hieragg_coll_kind kind) {
    static const char* names[HIERAGG_COLL_KIND_COUNT] = {
        "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw", "barrier",
        "bcast", "exscan", "gather", "gatherv", "reduce", "reduce_scatter", "reduce_scatter_block",
        "scan", "scatter", "scatterv", "neighbor_allgather", "neighbor_allgatherv",
        "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw"};
    return kind >= 0 && kind < HIERAGG_COLL_KIND_COUNT ? names[kind] : "unknown";
}

const char* hieragg_algorithm_names(hieragg_coll_kind kind) {
    return recipes::recipeFor(kind).algorithms;
}

}  // extern "C"
