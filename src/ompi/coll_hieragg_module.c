/*
 * Module: one per communicator. Every collective entry point turns its
 * arguments into a hieragg_coll_args and starts it in the core; blocking calls
 * are the same start plus a wait on Open MPI's progress engine.
 */
#include "coll_hieragg.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/attribute/attribute.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/mca/topo/base/base.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/info.h"

_Static_assert(MPI_ROOT == HIERAGG_ROOT, "MPI_ROOT value");
_Static_assert(MPI_PROC_NULL == HIERAGG_PROC_NULL, "MPI_PROC_NULL value");

/* ---- requests of nonblocking collectives ---- */

/* Open MPI's MPI layer treats every nonblocking collective request as an
 * ompi_coll_base_nbc_request_t (it retains the datatypes and ops in it until
 * completion), so ours must start with one. */
typedef struct mca_coll_hieragg_request_t {
    ompi_coll_base_nbc_request_t super;
    int* neighbors;             /* neighbor lists of a neighborhood collective, owned */
    hieragg_coll_args args;     /* persistent requests start these again */
    /* Persistent requests: the derived datatypes and user-defined op of the init, retained
     * until the request is freed (retain_persistent_objects). */
    opal_object_t** retained;
    int n_retained;
    uint32_t persistent_id;     /* from hieragg_persistent_init: matches starts in init order */
    mca_coll_hieragg_module_t* module;
} mca_coll_hieragg_request_t;
static OBJ_CLASS_INSTANCE(mca_coll_hieragg_request_t, ompi_coll_base_nbc_request_t, NULL, NULL);

static int map_status(int status) {
    switch (status) {
    case 0: return OMPI_SUCCESS;
    case HIERAGG_ERR_NO_MEM: return MPI_ERR_NO_MEM; /* an MPI error class the caller can test */
    case HIERAGG_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case HIERAGG_ERR_INTERNAL: return MPI_ERR_INTERN;
    default: return status;
    }
}

static int request_free(ompi_request_t** req) {
    mca_coll_hieragg_request_t* h = (mca_coll_hieragg_request_t*)*req;
    if (!REQUEST_COMPLETE(&h->super.super)) return MPI_ERR_REQUEST; /* still running */
    if (h->super.super.req_persistent && NULL != h->module)
        hieragg_persistent_free(h->module->state, h->persistent_id);
    free(h->neighbors);
    h->neighbors = NULL;
    for (int i = 0; i < h->n_retained; ++i) OBJ_RELEASE(h->retained[i]);
    free(h->retained);
    h->retained = NULL;
    h->n_retained = 0;
    OMPI_REQUEST_FINI(&h->super.super);
    OBJ_RELEASE(h);
    *req = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int request_cancel(ompi_request_t* req, int complete) {
    (void)req;
    (void)complete;
    return MPI_SUCCESS; /* collectives cannot be cancelled */
}

static void nonblocking_done(void* ctx, int status) {
    mca_coll_hieragg_request_t* h = (mca_coll_hieragg_request_t*)ctx;
    h->super.super.req_status.MPI_ERROR = map_status(status);
    ompi_request_complete(&h->super.super, true);
}

static mca_coll_hieragg_request_t* new_request(ompi_communicator_t* comm, bool persistent) {
    mca_coll_hieragg_request_t* h = OBJ_NEW(mca_coll_hieragg_request_t);
    if (NULL == h) return NULL;
    OMPI_REQUEST_INIT(&h->super.super, persistent);
    h->super.super.req_type = OMPI_REQUEST_COLL;
    h->super.super.req_state = persistent ? OMPI_REQUEST_INACTIVE : OMPI_REQUEST_ACTIVE;
    h->super.super.req_free = request_free;
    h->super.super.req_cancel = request_cancel;
    h->super.super.req_mpi_object.comm = comm;
    h->super.super.req_status.MPI_SOURCE = MPI_ANY_SOURCE;
    h->super.super.req_status.MPI_TAG = MPI_ANY_TAG;
    h->super.super.req_status.MPI_ERROR = MPI_SUCCESS;
    h->super.super.req_status._cancelled = 0;
    h->neighbors = NULL;
    h->retained = NULL;
    h->n_retained = 0;
    h->module = NULL;
    return h;
}

/* Open MPI's MPI layer retains the datatypes and op of a nonblocking collective's request
 * until it completes (ompi_coll_base_retain_datatypes), but skips a request that is not
 * active, as a persistent one is after its init: retain what a persistent request's
 * starts use (derived datatypes, the alltoallw arrays' derived types, a user op) here,
 * so the application may free them after the init, as with Open MPI's own components.
 * Released by request_free. */
static int retain_persistent_objects(mca_coll_hieragg_request_t* h, const hieragg_coll_args* a,
                                     ompi_communicator_t* comm) {
    int ns = 0, nr = 0;
    if (HIERAGG_ALLTOALLW == a->kind) {
        ns = nr = OMPI_COMM_IS_INTER(comm) ? ompi_comm_remote_size(comm) : ompi_comm_size(comm);
        if (a->in_place) ns = 0;
    } else if (HIERAGG_NEIGHBOR_ALLTOALLW == a->kind) {
        ns = a->outdegree;
        nr = a->indegree;
    }
    h->retained = (opal_object_t**)malloc(sizeof(opal_object_t*) * (size_t)(3 + ns + nr));
    if (NULL == h->retained) return OMPI_ERR_OUT_OF_RESOURCE;
    ompi_datatype_t* types[2] = {(ompi_datatype_t*)a->stype, (ompi_datatype_t*)a->rtype};
    for (int i = 0; i < 2 + ns + nr; ++i) {
        ompi_datatype_t* t = i < 2 ? types[i] : i < 2 + ns ? (ompi_datatype_t*)a->stypes[i - 2]
                                                           : (ompi_datatype_t*)a->rtypes[i - 2 - ns];
        if (NULL == t || ompi_datatype_is_predefined(t) || (1 == i && t == types[0])) continue;
        OBJ_RETAIN(t);
        h->retained[h->n_retained++] = &t->super.super;
    }
    ompi_op_t* op = (ompi_op_t*)a->op;
    if (NULL != op && !ompi_op_is_intrinsic(op)) {
        OBJ_RETAIN(op);
        h->retained[h->n_retained++] = &op->super;
    }
    return OMPI_SUCCESS;
}

/* MPI_Start / MPI_Startall on persistent collectives: run the saved call again. */
static int persistent_start(size_t count, ompi_request_t** requests) {
    for (size_t i = 0; i < count; ++i) {
        mca_coll_hieragg_request_t* h = (mca_coll_hieragg_request_t*)requests[i];
        if (OMPI_REQUEST_ACTIVE == h->super.super.req_state && !REQUEST_COMPLETE(&h->super.super))
            return MPI_ERR_REQUEST;
        h->super.super.req_complete = REQUEST_PENDING;
        h->super.super.req_state = OMPI_REQUEST_ACTIVE;
        h->super.super.req_status.MPI_ERROR = MPI_SUCCESS;
        int rc = hieragg_start_persistent(h->module->state, &h->args, h->persistent_id,
                                          nonblocking_done, h);
        if (rc != 0) {
            h->super.super.req_complete = REQUEST_COMPLETED;
            h->super.super.req_state = OMPI_REQUEST_INACTIVE;
            return map_status(rc);
        }
    }
    return OMPI_SUCCESS;
}

/* Every field zero (null), field by field: the compiler drops the stores that the entry's
 * FILL_<shape> overwrites, where a memset of the whole struct cost a rep-stos of 21 words
 * on every call (the padding is never read: the core compares the arguments by field).
 * A field added to hieragg_coll_args must be added here (the size check reminds). */
static inline void init_args(hieragg_coll_args* a, hieragg_coll_kind kind) {
    _Static_assert(sizeof(hieragg_coll_args) == 22 * sizeof(void*),
                   "hieragg_coll_args changed: set its new fields in init_args");
    a->kind = kind;
    a->sbuf = NULL;
    a->rbuf = NULL;
    a->in_place = 0;
    a->scount = a->rcount = 0;
    a->scounts = a->sdispls = a->rcounts = a->rdispls = NULL;
    a->sdispls_bytes = a->rdispls_bytes = NULL;
    a->stype = a->rtype = NULL;
    a->stypes = a->rtypes = NULL;
    a->op = NULL;
    a->op_commutative = 0;
    a->float_sum = 0;
    a->root = 0;
    a->topology = 0;
    a->indegree = a->outdegree = 0;
    a->sources = a->destinations = NULL;
}

/* MPI_IN_PLACE arrives as the send buffer (or, for scatter, the receive buffer). */
static void in_place(hieragg_coll_args* a) {
    if (a->sbuf == MPI_IN_PLACE) {
        a->in_place = 1;
        a->sbuf = NULL;
    }
    if (a->rbuf == MPI_IN_PLACE) {
        a->in_place = 1;
        a->rbuf = NULL;
    }
}

/* Call after the datatype is set: the core runs MPI_SUM on doubles and floats on
 * reproducible accumulators when coll_hieragg_reproducible=strong. */
static void set_op(hieragg_coll_args* a, ompi_op_t* op) {
    a->op = op;
    a->op_commutative = ompi_op_is_commute(op) ? 1 : 0;
    if (op == &ompi_mpi_op_sum.op && a->stype == (void*)&ompi_mpi_double.dt)
        a->float_sum = HIERAGG_FLOAT_SUM_DOUBLE;
    else if (op == &ompi_mpi_op_sum.op && a->stype == (void*)&ompi_mpi_float.dt)
        a->float_sum = HIERAGG_FLOAT_SUM_FLOAT;
}

/* Neighbor lists in the standard's order (cart: -1 then +1 shift per dimension). */
static int neighbor_lists(ompi_communicator_t* comm, hieragg_coll_args* a, int** owned) {
    int status = MPI_UNDEFINED, indeg = 0, outdeg = 0, rc;
    *owned = NULL;
    rc = PMPI_Topo_test(comm, &status);
    if (MPI_SUCCESS != rc) return rc;
    if (MPI_CART == status) {
        int ndims = 0;
        PMPI_Cartdim_get(comm, &ndims);
        indeg = outdeg = 2 * ndims;
    } else if (MPI_GRAPH == status) {
        PMPI_Graph_neighbors_count(comm, ompi_comm_rank(comm), &indeg);
        outdeg = indeg;
    } else if (MPI_DIST_GRAPH == status) {
        int weighted = 0;
        PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted);
    } else {
        return MPI_ERR_TOPOLOGY;
    }
    int* lists = (int*)malloc(sizeof(int) * (size_t)(indeg + outdeg + 1));
    if (NULL == lists) return OMPI_ERR_OUT_OF_RESOURCE;
    int* srcs = lists;
    int* dsts = lists + indeg;
    if (MPI_CART == status) {
        for (int d = 0; d < indeg / 2; ++d) {
            int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
            PMPI_Cart_shift(comm, d, 1, &lo, &hi);
            srcs[2 * d] = lo;
            srcs[2 * d + 1] = hi;
            dsts[2 * d] = lo;
            dsts[2 * d + 1] = hi;
        }
    } else if (MPI_GRAPH == status) {
        PMPI_Graph_neighbors(comm, ompi_comm_rank(comm), indeg, srcs);
        memcpy(dsts, srcs, sizeof(int) * (size_t)indeg);
    } else {
        /* MPI_UNWEIGHTED is a sentinel address that is never written through. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
        PMPI_Dist_graph_neighbors(comm, indeg, srcs, MPI_UNWEIGHTED, outdeg, dsts, MPI_UNWEIGHTED);
#pragma GCC diagnostic pop
    }
    a->topology = MPI_CART == status ? HIERAGG_TOPO_CART
                  : MPI_GRAPH == status ? HIERAGG_TOPO_GRAPH : HIERAGG_TOPO_DIST_GRAPH;
    a->indegree = indeg;
    a->outdegree = outdeg;
    a->sources = srcs;
    a->destinations = dsts;
    *owned = lists;
    return MPI_SUCCESS;
}

typedef enum { RUN_BLOCKING, RUN_NONBLOCKING, RUN_PERSISTENT } run_mode;

/* A blocking call without lists to free: starts and waits in one crossing (the core drives
 * opal_progress through the transport). Inline in every blocking entry but the neighborhood
 * ones: a repeated 8-byte call's whole cost is a few hundred instructions. */
static inline int run_blocking(const hieragg_coll_args* a, mca_coll_base_module_t* module) {
    return map_status(hieragg_run(((mca_coll_hieragg_module_t*)module)->state, a));
}

/* A barrier's arguments are its kind alone, the same on every call: a blocking barrier
 * calls the core's barrier entry, which knows them, instead of filling 22 fields per call
 * and having them compared with the last call's. */
static inline int run_barrier(mca_coll_base_module_t* module) {
    return map_status(hieragg_run_barrier(((mca_coll_hieragg_module_t*)module)->state));
}

/* Start the call (blocking: and wait for it; persistent: only prepare it). A neighborhood
 * collective first takes its neighbor lists from the communicator's topology. */
static int run(hieragg_coll_args* a, ompi_communicator_t* comm, mca_coll_base_module_t* module,
               ompi_request_t** request, run_mode mode, bool neighborhood) {
    mca_coll_hieragg_module_t* m = (mca_coll_hieragg_module_t*)module;
    int* neighbors = NULL;
    if (neighborhood) {
        int rc = neighbor_lists(comm, a, &neighbors);
        if (MPI_SUCCESS != rc) return rc;
    }
    if (RUN_BLOCKING == mode) {
        /* Start and wait in one crossing (the core drives opal_progress through the
         * transport); `a` and the neighbor lists stay valid until it returns. */
        int rc = hieragg_run(m->state, a);
        free(neighbors);
        return map_status(rc);
    }
    mca_coll_hieragg_request_t* h = new_request(comm, RUN_PERSISTENT == mode);
    if (NULL == h) {
        free(neighbors);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    h->neighbors = neighbors;
    h->args = *a;
    h->module = m;
    *request = &h->super.super;
    if (RUN_PERSISTENT == mode) {
        h->super.super.req_start = persistent_start;
        int rc = retain_persistent_objects(h, a, comm);
        if (OMPI_SUCCESS != rc) {
            h->module = NULL;
            request_free(request);
            *request = MPI_REQUEST_NULL;
            return rc;
        }
        rc = hieragg_persistent_init(m->state, a, &h->persistent_id);
        if (rc != 0) {
            h->module = NULL; /* nothing to release in the core */
            h->super.super.req_complete = REQUEST_COMPLETED;
            request_free(request);
            *request = MPI_REQUEST_NULL;
        }
        return map_status(rc);
    }
    /* The application may free its counts, displacements and datatype arrays once this
     * returns (the core copies what it reads later); Open MPI's MPI layer retains the
     * datatypes themselves until the request completes. */
    int rc = hieragg_start_nonblocking(m->state, a, nonblocking_done, h);
    if (rc != 0) {
        /* Nothing was started: release the request and report the error. */
        h->super.super.req_complete = REQUEST_COMPLETED;
        request_free(request);
        *request = MPI_REQUEST_NULL;
        return map_status(rc);
    }
    return OMPI_SUCCESS;
}

/* ---- the module's function table ---- */

#define P_DT struct ompi_datatype_t*
#define P_COMM struct ompi_communicator_t* comm
#define P_MOD mca_coll_base_module_t* module
#define P_REQ ompi_request_t** request
#define P_INFO struct ompi_info_t* info

/* The shapes of the collectives' parameters (ARGS_<shape>, the communicator last) and how
 * each fills the call's arguments `a` (FILL_<shape>(kind)). */
#define BUFS_AG const void* sbuf, int scount, P_DT sdtype, void* rbuf, int rcount, P_DT rdtype
#define ARGS_AG BUFS_AG, P_COMM
#define FILL_AG(kind)                                                                      \
    init_args(&a, kind); a.sbuf = sbuf; a.scount = scount; a.stype = sdtype; a.rbuf = rbuf; \
    a.rcount = rcount; a.rtype = rdtype; in_place(&a)
#define ARGS_AG_ROOTED BUFS_AG, int root, P_COMM
#define FILL_AG_ROOTED(kind) FILL_AG(kind); a.root = root

#define BUFS_AGV const void* sbuf, int scount, P_DT sdtype, void* rbuf, const int* rcounts, const int* disps, P_DT rdtype
#define ARGS_AGV BUFS_AGV, P_COMM
#define FILL_AGV(kind)                                                                     \
    init_args(&a, kind); a.sbuf = sbuf; a.scount = scount; a.stype = sdtype; a.rbuf = rbuf; \
    a.rcounts = rcounts; a.rdispls = disps; a.rtype = rdtype; in_place(&a)
#define ARGS_AGV_ROOTED BUFS_AGV, int root, P_COMM
#define FILL_AGV_ROOTED(kind) FILL_AGV(kind); a.root = root

#define BUFS_RED const void* sbuf, void* rbuf, int count, P_DT dtype, struct ompi_op_t* op
#define ARGS_RED BUFS_RED, P_COMM
#define FILL_RED(kind)                                                                     \
    init_args(&a, kind); a.sbuf = sbuf; a.rbuf = rbuf; a.scount = a.rcount = count;         \
    a.stype = a.rtype = dtype; set_op(&a, op); in_place(&a)
#define ARGS_RED_ROOTED BUFS_RED, int root, P_COMM
#define FILL_RED_ROOTED(kind) FILL_RED(kind); a.root = root

#define ARGS_A2AV                                                                            \
    const void* sbuf, const int* scounts, const int* sdisps, P_DT sdtype, void* rbuf, const int* rcounts, \
        const int* rdisps, P_DT rdtype, P_COMM
#define FILL_A2AV(kind)                                                                    \
    init_args(&a, kind); a.sbuf = sbuf; a.scounts = scounts; a.sdispls = sdisps;             \
    a.stype = sdtype; a.rbuf = rbuf; a.rcounts = rcounts; a.rdispls = rdisps;                \
    a.rtype = rdtype; in_place(&a)

#define ARGS_A2AW                                                                            \
    const void* sbuf, const int* scounts, const int* sdisps, P_DT const* sdtypes, void* rbuf, \
        const int* rcounts, const int* rdisps, P_DT const* rdtypes, P_COMM
#define FILL_A2AW(kind)                                                                      \
    init_args(&a, kind); a.sbuf = sbuf; a.scounts = scounts; a.sdispls = sdisps;               \
    a.stypes = (void* const*)sdtypes; a.rbuf = rbuf; a.rcounts = rcounts; a.rdispls = rdisps;  \
    a.rtypes = (void* const*)rdtypes; in_place(&a)

/* The neighborhood alltoallw: displacements in bytes (MPI_Aint), no MPI_IN_PLACE. */
#define ARGS_NA2AW                                                                                \
    const void* sbuf, const int* scounts, const MPI_Aint* sdisps, P_DT const* sdtypes, void* rbuf, \
        const int* rcounts, const MPI_Aint* rdisps, P_DT const* rdtypes, P_COMM
#define FILL_NA2AW(kind)                                                                        \
    init_args(&a, kind); a.sbuf = sbuf; a.scounts = scounts;                                      \
    a.sdispls_bytes = (const ptrdiff_t*)sdisps; a.stypes = (void* const*)sdtypes; a.rbuf = rbuf;  \
    a.rcounts = rcounts; a.rdispls_bytes = (const ptrdiff_t*)rdisps; a.rtypes = (void* const*)rdtypes

#define ARGS_BARRIER P_COMM
#define FILL_BARRIER(kind) init_args(&a, kind)

#define ARGS_BCAST void* buff, int count, P_DT dtype, int root, P_COMM
#define FILL_BCAST(kind)                                                                 \
    init_args(&a, kind); a.sbuf = a.rbuf = buff; a.scount = a.rcount = count;             \
    a.stype = a.rtype = dtype; a.root = root

#define ARGS_RS const void* sbuf, void* rbuf, const int* rcounts, P_DT dtype, struct ompi_op_t* op, P_COMM
#define FILL_RS(kind)                                                                     \
    init_args(&a, kind); a.sbuf = sbuf; a.rbuf = rbuf; a.rcounts = rcounts;                \
    a.stype = a.rtype = dtype; set_op(&a, op); in_place(&a)

#define ARGS_RSB const void* sbuf, void* rbuf, int rcount, P_DT dtype, struct ompi_op_t* op, P_COMM
#define FILL_RSB(kind)                                                                    \
    init_args(&a, kind); a.sbuf = sbuf; a.rbuf = rbuf; a.rcount = rcount; a.scount = rcount; \
    a.stype = a.rtype = dtype; set_op(&a, op); in_place(&a)

#define ARGS_SCATTERV                                                                          \
    const void* sbuf, const int* scounts, const int* disps, P_DT sdtype, void* rbuf, int rcount, \
        P_DT rdtype, int root, P_COMM
#define FILL_SCATTERV(kind)                                                                   \
    init_args(&a, kind); a.sbuf = sbuf; a.scounts = scounts; a.sdispls = disps;                \
    a.stype = sdtype; a.rbuf = rbuf; a.rcount = rcount; a.rtype = rdtype; a.root = root;       \
    in_place(&a)

/* Every collective hieragg serves: its name in the module's table, its kind, the shape of
 * its parameters, and whether it is a neighborhood collective (its neighbor lists come from
 * the communicator's topology). */
#define HG_COLLECTIVES(X)                                                  \
    X(allgather, HIERAGG_ALLGATHER, AG, false)                             \
    X(allgatherv, HIERAGG_ALLGATHERV, AGV, false)                          \
    X(allreduce, HIERAGG_ALLREDUCE, RED, false)                            \
    X(alltoall, HIERAGG_ALLTOALL, AG, false)                               \
    X(alltoallv, HIERAGG_ALLTOALLV, A2AV, false)                           \
    X(alltoallw, HIERAGG_ALLTOALLW, A2AW, false)                           \
    X(barrier, HIERAGG_BARRIER, BARRIER, false)                            \
    X(bcast, HIERAGG_BCAST, BCAST, false)                                  \
    X(exscan, HIERAGG_EXSCAN, RED, false)                                  \
    X(gather, HIERAGG_GATHER, AG_ROOTED, false)                            \
    X(gatherv, HIERAGG_GATHERV, AGV_ROOTED, false)                         \
    X(reduce, HIERAGG_REDUCE, RED_ROOTED, false)                           \
    X(reduce_scatter, HIERAGG_REDUCE_SCATTER, RS, false)                   \
    X(reduce_scatter_block, HIERAGG_REDUCE_SCATTER_BLOCK, RSB, false)      \
    X(scan, HIERAGG_SCAN, RED, false)                                      \
    X(scatter, HIERAGG_SCATTER, AG_ROOTED, false)                          \
    X(scatterv, HIERAGG_SCATTERV, SCATTERV, false)                         \
    X(neighbor_allgather, HIERAGG_NEIGHBOR_ALLGATHER, AG, true)            \
    X(neighbor_allgatherv, HIERAGG_NEIGHBOR_ALLGATHERV, AGV, true)         \
    X(neighbor_alltoall, HIERAGG_NEIGHBOR_ALLTOALL, AG, true)              \
    X(neighbor_alltoallv, HIERAGG_NEIGHBOR_ALLTOALLV, A2AV, true)          \
    X(neighbor_alltoallw, HIERAGG_NEIGHBOR_ALLTOALLW, NA2AW, true)

/* Each collective's blocking, nonblocking and persistent entries, with one body. */
#define HG_ENTRIES(name, kind, shape, neighborhood)                                        \
    static int hg_##name(ARGS_##shape, P_MOD) {                                            \
        if (HIERAGG_BARRIER == (kind)) return run_barrier(module);                         \
        hieragg_coll_args a;                                                               \
        FILL_##shape(kind);                                                                \
        if (!(neighborhood)) return run_blocking(&a, module);                              \
        return run(&a, comm, module, NULL, RUN_BLOCKING, neighborhood);                    \
    }                                                                                      \
    static int hg_i##name(ARGS_##shape, P_REQ, P_MOD) {                                    \
        hieragg_coll_args a;                                                               \
        FILL_##shape(kind);                                                                \
        return run(&a, comm, module, request, RUN_NONBLOCKING, neighborhood);              \
    }                                                                                      \
    static int hg_##name##_init(ARGS_##shape, P_INFO, P_REQ, P_MOD) {                      \
        hieragg_coll_args a;                                                               \
        (void)info;                                                                        \
        FILL_##shape(kind);                                                                \
        return run(&a, comm, module, request, RUN_PERSISTENT, neighborhood);               \
    }
HG_COLLECTIVES(HG_ENTRIES)
#undef HG_ENTRIES

/* MPI_Reduce_local: inoutbuf = inbuf op inoutbuf, no communication. */
static int hg_reduce_local(const void* inbuf, void* inoutbuf, int count, P_DT dtype,
                           struct ompi_op_t* op, P_MOD) {
    (void)module;
    ompi_op_reduce(op, (void*)inbuf, inoutbuf, (size_t)count, dtype);
    return OMPI_SUCCESS;
}

void mca_coll_hieragg_fill_functions(mca_coll_base_module_t* m) {
    m->coll_reduce_local = hg_reduce_local;
#define HG_SET(name, kind, shape, neighborhood)                                     \
    m->coll_##name = hg_##name;                                                     \
    m->coll_i##name = hg_i##name;                                                   \
    m->coll_##name##_init = hg_##name##_init;
    HG_COLLECTIVES(HG_SET)
#undef HG_SET
}

/* ---- module lifetime ---- */

static void module_construct(mca_coll_hieragg_module_t* m) {
    m->state = NULL;
    m->agreement = NULL;
}
static void module_destruct(mca_coll_hieragg_module_t* m) {
    if (m->state) hieragg_comm_destroy(m->state);
    m->state = NULL;
#if HIERAGG_ULFM
    mca_coll_hieragg_agreement_detach(m);
#endif
}
OBJ_CLASS_INSTANCE(mca_coll_hieragg_module_t, mca_coll_base_module_t, module_construct, module_destruct);

/* MPI_Comm_free deletes a communicator's attributes before it drops the user's
 * reference: the core stops listening there (hieragg_comm_freeing), or its posted
 * receives would keep the communicator from ever being destroyed; under ULFM a
 * communicator whose collectives failed keeps its context id (coll_hieragg_failed_comm.c).
 * The value is unused:
 * the core finds its state by the handle, and only while the module still exists. */
static int hieragg_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t hieragg_keyval_once = PTHREAD_ONCE_INIT;
static int hieragg_attr_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
    (void)keyval, (void)value, (void)extra;
    hieragg_comm_freeing(comm);
#if HIERAGG_ULFM
    mca_coll_hieragg_failed_comm_freeing(comm);
#endif
    return MPI_SUCCESS;
}
static void hieragg_create_keyval(void) {
    ompi_attribute_fn_ptr_union_t copy_fn, del_fn;
    copy_fn.attr_communicator_copy_fn = HIERAGG_COMM_NULL_COPY_FN;
    del_fn.attr_communicator_delete_fn = hieragg_attr_delete;
    if (OMPI_SUCCESS != ompi_attr_create_keyval(COMM_ATTR, copy_fn, del_fn, &hieragg_keyval, NULL, 0, NULL))
        hieragg_keyval = MPI_KEYVAL_INVALID;
}

static int module_enable(mca_coll_base_module_t* module, struct ompi_communicator_t* comm) {
    mca_coll_hieragg_module_t* m = (mca_coll_hieragg_module_t*)module;
    const int inter = OMPI_COMM_IS_INTER(comm) ? 1 : 0;
    m->state = hieragg_comm_create(comm, ompi_comm_rank(comm), ompi_comm_size(comm), inter,
                                   inter ? ompi_comm_remote_size(comm) : 0,
                                   ompi_comm_rank(&ompi_mpi_comm_world.comm));
    if (!m->state) return OMPI_ERR_OUT_OF_RESOURCE;
    pthread_once(&hieragg_keyval_once, hieragg_create_keyval);
    if (MPI_KEYVAL_INVALID != hieragg_keyval)
        (void)ompi_attr_set_c(COMM_ATTR, comm, &comm->c_keyhash, hieragg_keyval, m->state, false);
#if HIERAGG_ULFM
    mca_coll_hieragg_failed_comm_created(comm);
#endif
    return OMPI_SUCCESS;
}

/* Info key "hieragg_disable"="true" on a communicator (MPI_Comm_dup_with_info)
 * leaves it to the other components, e.g. to compare both in one job. */
static bool disabled_by_info(struct ompi_communicator_t* comm) {
    char value[16] = {0};
    if (!hieragg_compat_info_get(comm->super.s_info, "hieragg_disable", value, sizeof value)) return false;
    return 0 == strcmp(value, "true") || 0 == strcmp(value, "1");
}

/* Info key "ompi_comm_coll_preference" names the components a communicator
 * wants first; HAN sets it on the sub-communicators it builds for itself (e.g.
 * "sm,^han", "tuned,^han"). When it names components but not hieragg, the
 * communicator belongs to another component's algorithm: stay out of it, or
 * hieragg (priority above the named one's) would run HAN's inner steps. */
static bool reserved_for_others(struct ompi_communicator_t* comm) {
    char value[256] = {0};
    if (!hieragg_compat_info_get(comm->super.s_info, "ompi_comm_coll_preference", value, sizeof value))
        return false;
    bool names_any = false;
    char* save = NULL;
    for (char* tok = strtok_r(value, ",", &save); tok && '^' != tok[0]; tok = strtok_r(NULL, ",", &save)) {
        if (0 == strcmp(tok, "hieragg")) return false;
        names_any = true;
    }
    return names_any;
}

mca_coll_base_module_t* mca_coll_hieragg_comm_query(struct ompi_communicator_t* comm, int* priority) {
    mca_coll_hieragg_component_t* c = &mca_coll_hieragg_component;
    if (c->priority < 0 || !c->core_ready) return NULL;
    if (disabled_by_info(comm) || reserved_for_others(comm)) return NULL;
    mca_coll_hieragg_module_t* m = OBJ_NEW(mca_coll_hieragg_module_t);
    if (NULL == m) return NULL;
    m->super.coll_module_enable = module_enable;
    mca_coll_hieragg_fill_functions(&m->super);
#if HIERAGG_ULFM
    mca_coll_hieragg_agreement_attach(m, comm);
#endif
    *priority = c->priority;
    return &m->super;
}
