// The C ABI (include/hieragg/abi.h) over the C++ core.
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>

#include "CommState.hpp"
#include "Runtime.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"

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

// What a Plan depends on besides the communicator: the collective, the size class of its
// message, the op's commutativity and the override; only what every rank of the call
// shares (not in-place, which MPI lets the root alone set), so every rank picks the same
// plan. Roots and exact counts of a class share it (choosePlan ignores the root).
std::string planKey(const CollCall& c) {
    struct Key {
        int kind, sizeClass, commutative, algorithm;
    } k{c.args.kind, hier::sizeClass(hier::modelBytes(c)), c.args.op_commutative, c.algorithm};
    return std::string(reinterpret_cast<const char*>(&k), sizeof k);
}

// A forced algorithm whose needs fail is refused once (world rank 0 speaks for the job,
// as for the decomposition's warnings) and the model's choice runs.
void refuseUnfit(CollCall& call, const hieragg_comm& c, Runtime& rt) {
    if (call.algorithm == 0) return;
    std::string why;
    if (hier::forcedAlgorithm(call, &why)) return;
    const hier::AlgorithmInfo* a = hier::algorithmByValue(call.args.kind, call.algorithm);
    if (c.worldRank == 0 && a)
        rt.warnOnce(std::string("coll_hieragg_") + hieragg_coll_name(call.args.kind) + "_algorithm=" + a->name +
                    " refused: it " + why + "; the cost model's choice runs instead");
    call.algorithm = 0;
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
        describeTypes(call, rt->transport());
        refuseUnfit(call, *c, *rt);
        call.costs = &rt->costs();
        call.stageLinks = c->stageLinks.empty() ? nullptr : &c->stageLinks;
        bool newPlan = false;
        if (hier::modelDriven(args->kind)) {
            const std::string pk = planKey(call);
            std::shared_ptr<const hier::Plan>* found = c->plans.find(pk);
            if (!found) {
                found = &c->plans.insert(pk, std::make_shared<const hier::Plan>(hier::choosePlan(call, rt->costs())));
                newPlan = true;
            }
            call.plan = *found;
        }

        std::shared_ptr<const Schedule> sched;
        std::string key;
        if (cacheable(args->kind)) {
            key = cacheKey(call);
            if (auto* hit = c->cache.find(key)) sched = *hit;
        }
        if (!sched) {
            sched = std::make_shared<const Schedule>(recipes::buildSchedule(call));
            if (sched->channels > kMaxChannels) return HIERAGG_ERR_INTERNAL;
            if (c->rank == 0 || c->inter) {
                // Once per communicator and signature class: the plan, stage by stage.
                std::string msg = std::string("hieragg: ") + hieragg_coll_name(args->kind) + " on " +
                                  std::to_string(c->size) + " ranks: " + sched->algorithm;
                if (newPlan) {
                    char pred[64];
                    std::snprintf(pred, sizeof pred, "%.2f", call.plan->predUs);
                    msg += " [" + std::to_string(hier::modelBytes(call)) + " B, pred=" + pred + " us]\n" +
                           call.plan->describe();
                }
                if (newPlan || !hier::modelDriven(args->kind)) rt->verbose(2, msg);
            }
            if (!key.empty()) c->cache.insert(key, sched);
        }
        const uint32_t seq = c->seq++;
        auto task = std::make_unique<Task>(
            sched, rt->transport(),
            bindCall(call, rt->transport(), c->comm, tagBase(seq, false), tagBase(seq, true)));
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
    return hier::algorithmNames(kind);
}

hieragg_link_cost hieragg_default_link_cost(int link) { return hier::defaultLinkCost(link); }

const char* hieragg_link_class_name(int link) { return hier::linkClassName(link); }

}  // extern "C"
