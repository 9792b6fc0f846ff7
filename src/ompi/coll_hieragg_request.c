/*
 * The requests of nonblocking and persistent collectives: made for a call the
 * entries (coll_hieragg_entries.c) hand over, completed from the core's
 * callback, started again by MPI_Start, freed by MPI_Request_free.
 */
#include "coll_hieragg.h"

#include <stdlib.h>

#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"


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
    h->super.super.req_status.MPI_ERROR = mca_coll_hieragg_map_status(status);
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
            return mca_coll_hieragg_map_status(rc);
        }
    }
    return OMPI_SUCCESS;
}

int mca_coll_hieragg_request_start(const hieragg_coll_args* a, ompi_communicator_t* comm,
                                   mca_coll_hieragg_module_t* m, int* neighbors,
                                   ompi_request_t** request, bool persistent) {
    mca_coll_hieragg_request_t* h = new_request(comm, persistent);
    if (NULL == h) {
        free(neighbors);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    h->neighbors = neighbors;
    h->args = *a;
    h->module = m;
    *request = &h->super.super;
    if (persistent) {
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
        return mca_coll_hieragg_map_status(rc);
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
        return mca_coll_hieragg_map_status(rc);
    }
    return OMPI_SUCCESS;
}
