/*
 * The module's function table: every collective entry point (blocking,
 * nonblocking, persistent, neighborhood, reduce_local) turns its arguments into
 * a hieragg_coll_args and runs it in the core; blocking calls start and wait in
 * one crossing, the others hand a request over (coll_hieragg_request.c).
 */
#include "coll_hieragg.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/mca/topo/base/base.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"

_Static_assert(MPI_ROOT == HIERAGG_ROOT, "MPI_ROOT value");
_Static_assert(MPI_PROC_NULL == HIERAGG_PROC_NULL, "MPI_PROC_NULL value");

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
    return mca_coll_hieragg_map_status(hieragg_run(((mca_coll_hieragg_module_t*)module)->state, a));
}

/* A barrier's arguments are its kind alone, the same on every call: a blocking barrier
 * calls the core's barrier entry, which knows them, instead of filling 22 fields per call
 * and having them compared with the last call's. */
static inline int run_barrier(mca_coll_base_module_t* module) {
    return mca_coll_hieragg_map_status(hieragg_run_barrier(((mca_coll_hieragg_module_t*)module)->state));
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
        return mca_coll_hieragg_map_status(rc);
    }
    return mca_coll_hieragg_request_start(a, comm, m, neighbors, request, RUN_PERSISTENT == mode);
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
