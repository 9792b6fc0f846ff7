/*
 * The transport the core runs on: Open MPI's PML for messages, the datatype
 * engine for copies between layouts, ompi_op_reduce for reductions.
 */
#include "coll_hieragg.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"

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

static int t_test(void* req, int* done) {
    ompi_request_t* r = (ompi_request_t*)req;
    if (!REQUEST_COMPLETE(r)) {
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

static int t_reduce(void* op, const void* src, void* dst, size_t count, void* dtype) {
    ompi_op_reduce((ompi_op_t*)op, (void*)src, dst, count, (ompi_datatype_t*)dtype);
    return OMPI_SUCCESS;
}

static int t_copy(const void* src, size_t scount, void* stype, void* dst, size_t rcount, void* rtype) {
    if (scount == 0 && rcount == 0) return OMPI_SUCCESS;
    return ompi_datatype_sndrcv(src, (int32_t)scount, (ompi_datatype_t*)stype, dst, (int32_t)rcount,
                                (ompi_datatype_t*)rtype);
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
}

static void t_progress(void) { opal_progress(); }

static void t_output(int level, const char* msg) {
    if (level == 0)
        opal_output(0, "coll:hieragg: WARNING: %s", msg);
    else
        opal_output_verbose(level, mca_coll_hieragg_component.output, "%s", msg);
}

void mca_coll_hieragg_transport(hieragg_transport* t) {
    t->isend = t_isend;
    t->irecv = t_irecv;
    t->test = t_test;
    t->abandon = t_abandon;
    t->reduce = t_reduce;
    t->copy = t_copy;
    t->dtype_info = t_dtype_info;
    t->packed_type = &ompi_mpi_packed.dt;
    t->accumulator_type = NULL; /* set by init_query when reproducible=strong */
    t->progress = t_progress;
    t->output = t_output;
}
