/*
 * ULFM's agreement (MPIX_Comm_agree, MPIX_Comm_iagree, and inside MPIX_Comm_shrink) on
 * communicators hieragg serves (docs/fault-tolerance.md).
 *
 * Open MPI's coll/ftagree provides it: beside the other components hieragg leaves the
 * two entries empty and ftagree fills them. With `--mca coll hieragg` alone the
 * framework never opens ftagree and nothing would fill them (shrink would call a null
 * function). hieragg then runs ftagree itself: when this Open MPI has the component
 * built in (Debian's libmpi does), hieragg initialises it once, asks it for a module on
 * each communicator and forwards the two entries to that module. Without it (a build
 * with ftagree as a plugin that was not opened), hieragg says so once: agreement and
 * shrink need `--mca coll hieragg,ftagree` there. With fault tolerance off (Open MPI 5
 * without --with-ft ulfm) the entries are Open MPI's allreduce-based ones, as coll/basic's.
 */
#include "coll_hieragg.h"

#if HIERAGG_ULFM

#include <dlfcn.h>
#include <string.h>

#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/coll/base/coll_base_functions.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

static const mca_coll_base_component_t* borrowed = NULL; /* ftagree, run by hieragg */

static bool framework_opened(const char* name) {
    mca_base_component_list_item_t* cli;
    OPAL_LIST_FOREACH (cli, &ompi_coll_base_framework.framework_components, mca_base_component_list_item_t) {
        if (0 == strcmp(cli->cli_component->mca_component_name, name)) return true;
    }
    return false;
}

void mca_coll_hieragg_agreement_init(void) {
    if (!ompi_ftmpi_enabled || NULL != borrowed || framework_opened("ftagree")) return;
    const mca_coll_base_component_t* c =
        (const mca_coll_base_component_t*)dlsym(RTLD_DEFAULT, "mca_coll_ftagree_component");
    if (NULL != c && NULL != c->collm_init_query && NULL != c->collm_comm_query &&
        OMPI_SUCCESS == c->collm_init_query(false, false)) {
        borrowed = c;
        opal_output_verbose(1, mca_coll_hieragg_component.output,
                            "coll:hieragg: coll/ftagree is not selected: hieragg runs it for MPIX_Comm_agree and shrink");
        return;
    }
    if (0 == opal_proc_local_get()->proc_name.vpid)
        opal_output(0, "coll:hieragg: WARNING: fault tolerance is enabled but coll/ftagree is neither selected "
                       "nor built into libmpi: MPIX_Comm_agree and MPIX_Comm_shrink need it "
                       "(use --mca coll hieragg,ftagree)");
}

void mca_coll_hieragg_agreement_fini(void) {
    if (NULL != borrowed && NULL != borrowed->collm_version.mca_close_component)
        borrowed->collm_version.mca_close_component();
    borrowed = NULL;
}

static int hg_agree(void* contrib, int count, struct ompi_datatype_t* dtype, struct ompi_op_t* op,
                    struct ompi_group_t** failed, bool update, struct ompi_communicator_t* comm,
                    mca_coll_base_module_t* module) {
    mca_coll_base_module_t* a = ((mca_coll_hieragg_module_t*)module)->agreement;
    return a->coll_agree(contrib, count, dtype, op, failed, update, comm, a);
}

static int hg_iagree(void* contrib, int count, struct ompi_datatype_t* dtype, struct ompi_op_t* op,
                     struct ompi_group_t** failed, bool update, struct ompi_communicator_t* comm,
                     ompi_request_t** request, mca_coll_base_module_t* module) {
    mca_coll_base_module_t* a = ((mca_coll_hieragg_module_t*)module)->agreement;
    return a->coll_iagree(contrib, count, dtype, op, failed, update, comm, request, a);
}

void mca_coll_hieragg_agreement_attach(mca_coll_hieragg_module_t* m, struct ompi_communicator_t* comm) {
    if (!ompi_ftmpi_enabled) {
        /* Fault tolerance off: no failure to survive, and ftagree declines. The agreement
         * is an allreduce (what coll/basic provides beside us; with `--mca coll hieragg`
         * alone nothing else would). */
        m->super.coll_agree = ompi_coll_base_agree_noft;
        m->super.coll_iagree = ompi_coll_base_iagree_noft;
        return;
    }
    if (NULL == borrowed) return;
    int priority = 0;
    mca_coll_base_module_t* a = borrowed->collm_comm_query(comm, &priority);
    if (NULL == a) return;
    if (NULL != a->coll_module_enable && OMPI_SUCCESS != a->coll_module_enable(a, comm)) {
        OBJ_RELEASE(a);
        return;
    }
    m->agreement = a;
    if (NULL != a->coll_agree) m->super.coll_agree = hg_agree;
    if (NULL != a->coll_iagree) m->super.coll_iagree = hg_iagree;
}

void mca_coll_hieragg_agreement_detach(mca_coll_hieragg_module_t* m) {
    if (NULL != m->agreement) OBJ_RELEASE(m->agreement);
    m->agreement = NULL;
}

#endif
