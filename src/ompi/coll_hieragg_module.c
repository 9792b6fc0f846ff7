/*
 * Module: one per communicator. Its life (the core's state made at enable,
 * destroyed with the module; the attribute that tells the core a communicator
 * is being freed) and the communicator query that decides whether hieragg
 * serves a communicator. Its function table: coll_hieragg_entries.c.
 */
#include "coll_hieragg.h"

#include <pthread.h>
#include <string.h>

#include "ompi/attribute/attribute.h"
#include "opal/util/info.h"

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
