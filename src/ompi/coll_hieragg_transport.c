/*
 * The transport the core runs on: Open MPI's PML for messages, the datatype
 * engine for copies between layouts, ompi_op_reduce for reductions.
 */
#include "coll_hieragg.h"

#include <limits.h>
#include <stddef.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"

/* abi.h names Open MPI's types for the PML's entry points and a request's release, so that
 * the core calls them through their exact types; the send mode's enum is an unsigned int to
 * the compiler (all its values are non-negative). */
_Static_assert(__builtin_types_compatible_p(__typeof__(mca_pml.pml_isend), hieragg_pml_isend_fn),
               "abi.h hieragg_pml_isend_fn is not mca_pml.pml_isend's type");
_Static_assert(__builtin_types_compatible_p(__typeof__(mca_pml.pml_irecv), hieragg_pml_irecv_fn),
               "abi.h hieragg_pml_irecv_fn is not mca_pml.pml_irecv's type");
_Static_assert(__builtin_types_compatible_p(__typeof__(((ompi_request_t*)0)->req_free), hieragg_request_free_fn),
               "abi.h hieragg_request_free_fn is not ompi_request_t::req_free's type");
_Static_assert(__builtin_types_compatible_p(mca_pml_base_send_mode_t, hieragg_pml_send_mode),
               "abi.h hieragg_pml_send_mode is not mca_pml_base_send_mode_t");
_Static_assert(sizeof(((ompi_status_public_t*)0)->MPI_ERROR) == sizeof(int), "a status's error is an int");
_Static_assert(__builtin_types_compatible_p(__typeof__(&ompi_request_empty), ompi_request_t*),
               "abi.h request_empty: ompi_request_empty is not an ompi_request_t");

static ompi_communicator_t* pick(void* comm, int local) {
    ompi_communicator_t* c = (ompi_communicator_t*)comm;
    return local ? c->c_local_comm : c;
}

static int t_isend(void* comm, int local, const void* buf, size_t count, void* dtype, int peer,
                   int tag, void** req) {
    ompi_request_t* r = NULL;
    int rc = MCA_PML_CALL(isend(buf, count, (ompi_datatype_t*)dtype, peer, tag,
                                MCA_PML_BASE_SEND_STANDARD, pick(comm, local), &r));
    *req = r;
    return rc;
}

static int t_irecv(void* comm, int local, void* buf, size_t count, void* dtype, int peer, int tag,
                   void** req) {
    ompi_request_t* r = NULL;
    int rc = MCA_PML_CALL(irecv(buf, count, (ompi_datatype_t*)dtype, peer, tag, pick(comm, local), &r));
    *req = r;
    return rc;
}

/* A request that ended inside its post (an eager send, a receive whose message had
 * arrived): released now, its status returned and *req NULL, as t_test right after would. */
static int released_if_ended(int rc, void** req) {
    ompi_request_t* r = (ompi_request_t*)*req;
    if (OMPI_SUCCESS != rc || NULL == r || !REQUEST_COMPLETE(r)) return rc;
    rc = r->req_status.MPI_ERROR;
    ompi_request_free(&r);
    *req = NULL;
    return rc;
}

static int t_isend_released(void* comm, int local, const void* buf, size_t count, void* dtype, int peer,
                            int tag, void** req) {
    return released_if_ended(t_isend(comm, local, buf, count, dtype, peer, tag, req), req);
}

static int t_irecv_released(void* comm, int local, void* buf, size_t count, void* dtype, int peer, int tag,
                            void** req) {
    return released_if_ended(t_irecv(comm, local, buf, count, dtype, peer, tag, req), req);
}

static int t_test(void* req, int* done) {
    ompi_request_t* r = (ompi_request_t*)req;
    if (!hieragg_compat_request_ended(r)) {
        *done = 0;
        return OMPI_SUCCESS;
    }
    int err = r->req_status.MPI_ERROR;
    ompi_request_free(&r);
    *done = 1;
    return err;
}

static void t_abandon(void* req) {
    ompi_request_t* r = (ompi_request_t*)req;
    if (!REQUEST_COMPLETE(r)) ompi_request_cancel(r);
    ompi_request_free(&r);
}

#if HIERAGG_ULFM
/* A request of a failed call. After a process failure (its communicator's collectives or
 * the communicator revoked) ULFM ends every request on it: cancelled when unmatched or
 * its peer died, NACKed by the live receiver for a rendezvous send, finished when already
 * matched. Until then the PML may still read or write its buffer, so the core keeps
 * testing it (Task::drain) and the call completes after it, as Open MPI's own collectives
 * cancel and wait. Any other failure: abandoned as before. */
static int t_cancel_failed(void* req) {
    ompi_request_t* r = (ompi_request_t*)req;
    if (!REQUEST_COMPLETE(r)) ompi_request_cancel(r);
    ompi_communicator_t* c = r->req_mpi_object.comm;
    if (hieragg_compat_request_ended(r) || !ompi_ftmpi_enabled || NULL == c ||
        !(ompi_comm_coll_revoked(c) || ompi_comm_is_revoked(c))) {
        ompi_request_free(&r);
        return 1;
    }
    return 0;
}
#endif

static int t_reduce(void* op, const void* src, void* dst, size_t count, void* dtype) {
    ompi_op_reduce((ompi_op_t*)op, (void*)src, dst, count, (ompi_datatype_t*)dtype);
    return OMPI_SUCCESS;
}

/* Overridable only to exercise the chunked path with small copies. */
#ifndef HIERAGG_COPY_CHUNK_LIMIT
#define HIERAGG_COPY_CHUNK_LIMIT INT_MAX
#endif
#ifndef HIERAGG_COPY_CHUNK_BYTES
#define HIERAGG_COPY_CHUNK_BYTES ((size_t)1 << 30)
#endif

static size_t gcd_size(size_t a, size_t b) {
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* ompi_datatype_sndrcv takes int32 counts: a larger copy (e.g. gigabytes of packed
 * bytes) runs in chunks that end on element boundaries of both types. */
static int t_copy(const void* src, size_t scount, void* stype, void* dst, size_t rcount, void* rtype) {
    ompi_datatype_t *st = (ompi_datatype_t*)stype, *rt = (ompi_datatype_t*)rtype;
    if (scount == 0 && rcount == 0) return OMPI_SUCCESS;
    if (scount <= HIERAGG_COPY_CHUNK_LIMIT && rcount <= HIERAGG_COPY_CHUNK_LIMIT)
        return ompi_datatype_sndrcv(src, (int32_t)scount, st, dst, (int32_t)rcount, rt);
    size_t ssize = 0, rsize = 0;
    ptrdiff_t lb = 0, sext = 0, rext = 0;
    ompi_datatype_type_size(st, &ssize);
    ompi_datatype_type_size(rt, &rsize);
    ompi_datatype_get_extent(st, &lb, &sext);
    ompi_datatype_get_extent(rt, &lb, &rext);
    if (0 == ssize || 0 == rsize) return OMPI_SUCCESS;
    const size_t total = scount * ssize;
    if (total > rcount * rsize) return MPI_ERR_TRUNCATE;
    const size_t unit = ssize / gcd_size(ssize, rsize) * rsize; /* both types end an element here */
    if (unit > (size_t)INT_MAX) return MPI_ERR_COUNT;
    const size_t chunk = unit * (HIERAGG_COPY_CHUNK_BYTES / unit ? HIERAGG_COPY_CHUNK_BYTES / unit : 1);
    for (size_t done = 0; done < total;) {
        const size_t bytes = total - done < chunk ? total - done : chunk;
        int rc = ompi_datatype_sndrcv((const char*)src + (ptrdiff_t)(done / ssize) * sext,
                                      (int32_t)(bytes / ssize), st,
                                      (char*)dst + (ptrdiff_t)(done / rsize) * rext,
                                      (int32_t)(bytes / rsize), rt);
        if (OMPI_SUCCESS != rc) return rc;
        done += bytes;
    }
    return OMPI_SUCCESS;
}

static void t_dtype_info(void* dtype, hieragg_dtype_info* out) {
    ompi_datatype_t* d = (ompi_datatype_t*)dtype;
    size_t size = 0;
    ptrdiff_t lb = 0, extent = 0, tlb = 0, textent = 0;
    ompi_datatype_type_size(d, &size);
    ompi_datatype_get_extent(d, &lb, &extent);
    ompi_datatype_get_true_extent(d, &tlb, &textent);
    out->size = size;
    out->lb = lb;
    out->extent = extent;
    out->true_lb = tlb;
    out->true_extent = textent;
    out->predefined = ompi_datatype_is_predefined(d) ? 1 : 0;
}

/* opal_progress returns nothing on Open MPI 4.1 and an int on 5.0: where it is a
 * void (*)(void) the shim hands it over itself (a wait loop's pass crosses no frame of the
 * shim), elsewhere through this frame. */
static void t_progress(void) { (void)opal_progress(); }
#define HIERAGG_PROGRESS_FN                                                                   \
    __builtin_choose_expr(__builtin_types_compatible_p(__typeof__(&opal_progress), void (*)(void)), \
                          opal_progress, t_progress)

static void t_output(int level, const char* msg) {
    if (level == 0)
        opal_output(0, "coll:hieragg: WARNING: %s", msg);
    else
        opal_output_verbose(level, mca_coll_hieragg_component.output, "%s", msg);
}

/* Offload (docs/offload.md): the basic element of a datatype whose signature is one basic
 * type (compared with the predefined types' own signatures, so derived types of doubles
 * agree with MPI_DOUBLE on every rank), and the kind of a predefined operation. */
static void t_numeric_kind(void* dtype, void* op, int* elem, int* op_kind) {
    static const struct { MPI_Datatype type; int elem; } types[] = {
        {MPI_INT8_T, HIERAGG_ELEM_INT8},     {MPI_UINT8_T, HIERAGG_ELEM_UINT8},
        {MPI_INT16_T, HIERAGG_ELEM_INT16},   {MPI_UINT16_T, HIERAGG_ELEM_UINT16},
        {MPI_INT32_T, HIERAGG_ELEM_INT32},   {MPI_UINT32_T, HIERAGG_ELEM_UINT32},
        {MPI_INT64_T, HIERAGG_ELEM_INT64},   {MPI_UINT64_T, HIERAGG_ELEM_UINT64},
        {MPI_FLOAT, HIERAGG_ELEM_FLOAT},     {MPI_DOUBLE, HIERAGG_ELEM_DOUBLE}};
    static const struct { MPI_Op op; int kind; } ops[] = {
        {MPI_MIN, HIERAGG_OPK_MIN},   {MPI_MAX, HIERAGG_OPK_MAX},   {MPI_SUM, HIERAGG_OPK_SUM},
        {MPI_PROD, HIERAGG_OPK_PROD}, {MPI_LOR, HIERAGG_OPK_LOR},   {MPI_LAND, HIERAGG_OPK_LAND},
        {MPI_BOR, HIERAGG_OPK_BOR},   {MPI_BAND, HIERAGG_OPK_BAND}, {MPI_LXOR, HIERAGG_OPK_LXOR},
        {MPI_BXOR, HIERAGG_OPK_BXOR}};
    ompi_datatype_t* d = (ompi_datatype_t*)dtype;
    *elem = HIERAGG_ELEM_NONE;
    *op_kind = HIERAGG_OPK_NONE;
    if (d && d->super.bdt_used && 0 == (d->super.bdt_used & (d->super.bdt_used - 1)))
        for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
            if (types[i].type->super.bdt_used == d->super.bdt_used) {
                *elem = types[i].elem;
                break;
            }
    for (size_t i = 0; op && i < sizeof ops / sizeof ops[0]; ++i)
        if ((MPI_Op)op == ops[i].op) *op_kind = ops[i].kind;
}

void mca_coll_hieragg_transport(hieragg_transport* t) {
    t->isend = t_isend;
    t->irecv = t_irecv;
    t->isend_released = t_isend_released;
    t->irecv_released = t_irecv_released;
    t->test = t_test;
    t->abandon = t_abandon;
    t->reduce = t_reduce;
    t->copy = t_copy;
    t->dtype_info = t_dtype_info;
    t->packed_type = &ompi_mpi_packed.dt;
    t->accumulator_type = NULL; /* set by init_query when reproducible=strong */
    t->progress = HIERAGG_PROGRESS_FN;
    t->output = t_output;
    t->numeric_kind = t_numeric_kind;
#if HIERAGG_ULFM
    t->cancel_failed = t_cancel_failed;
    t->request_done_offset = 0; /* a failed request ends only when tested (compat.h) */
    t->request_done_value = NULL;
#else
    t->cancel_failed = NULL;
    /* hieragg_compat_request_ended is REQUEST_COMPLETE alone here */
    t->request_done_offset = offsetof(ompi_request_t, req_complete);
    t->request_done_value = REQUEST_COMPLETED;
#endif
    t->pml_isend = NULL;
    t->pml_irecv = NULL;
    t->pml_send_standard = MCA_PML_BASE_SEND_STANDARD;
    t->request_error_offset = offsetof(ompi_request_t, req_status) + offsetof(ompi_status_public_t, MPI_ERROR);
    t->request_free_offset = offsetof(ompi_request_t, req_free);
    /* ob1's isend (4.1 and 5.0) returns it when its inline send succeeds; its req_free
     * (ompi_request_empty_free) only writes MPI_REQUEST_NULL into the handle (abi.h). */
    t->request_empty = &ompi_request_empty;
#if !HIERAGG_ULFM
    /* The PML is selected before the coll components are queried (init_query reads its
     * pml_max_tag too) and its table does not change afterwards: the core posts straight into
     * it (abi.h pml_isend), through Open MPI's own types. */
    t->pml_isend = mca_pml.pml_isend;
    t->pml_irecv = mca_pml.pml_irecv;
#endif
}
