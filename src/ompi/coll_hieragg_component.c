/*
 * Component: open/close, the registration of its MCA parameters
 * (coll_hieragg_params.c) and MPI_T variables (coll_hieragg_pvars.c), and
 * init_query: the core's start-up from those parameters and the progress
 * registration. The communicator query is the module's (coll_hieragg_module.c).
 */
#include "coll_hieragg.h"

#include <string.h>
#include <unistd.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/mca/pml/base/base.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/runtime/mpiruntime.h"

static int hieragg_register(void);
static int hieragg_open(void);
static int hieragg_close(void);

mca_coll_hieragg_component_t mca_coll_hieragg_component = {
    .super = {
        .collm_version = {
            HIERAGG_COLL_BASE_VERSION,
            .mca_component_name = "hieragg",
            MCA_BASE_MAKE_VERSION(component, 0, 1, 0),
            .mca_open_component = hieragg_open,
            .mca_close_component = hieragg_close,
            .mca_register_component_params = hieragg_register,
        },
        .collm_data = { MCA_BASE_METADATA_PARAM_CHECKPOINT },
        .collm_init_query = mca_coll_hieragg_init_query,
        .collm_comm_query = mca_coll_hieragg_comm_query,
    },
    /* The MCA parameters' defaults are in hieragg_params (written at registration). */
    .accumulator_type = NULL,
    .output = -1,
};

static int hieragg_register(void) {
    mca_base_component_t* c = &mca_coll_hieragg_component.super.collm_version;
    mca_coll_hieragg_register_params(c, &mca_coll_hieragg_component);
    mca_coll_hieragg_register_pvars(c);
    return OMPI_SUCCESS;
}

static int hieragg_open(void) {
    mca_coll_hieragg_component_t* m = &mca_coll_hieragg_component;
    m->output = opal_output_open(NULL);
    opal_output_set_verbosity(m->output, m->verbose);
    return OMPI_SUCCESS;
}

static int hieragg_close(void) {
    mca_coll_hieragg_component_t* m = &mca_coll_hieragg_component;
    if (m->core_ready) {
        opal_progress_unregister(hieragg_progress);
#if HIERAGG_ULFM
        mca_coll_hieragg_agreement_fini();
#endif
        hieragg_core_fini();
        m->core_ready = 0;
    }
    if (m->accumulator_type) ompi_datatype_destroy(&m->accumulator_type);
    if (m->output >= 0) opal_output_close(m->output);
    m->output = -1;
    return OMPI_SUCCESS;
}

/* An eager limit for the setup calibration (docs/selection.md), under pml ob1 only: the first of
 * `names` (NULL-terminated) that a BTL registered as an MCA variable: btl_tcp_eager_limit for the
 * network (Ethernet clusters, the emulated nodes), the shared-memory BTL's for the node link. 0
 * (unknown) under another PML or without those BTLs: the calibration then times only sizes below
 * 32 KiB. */
static size_t hieragg_eager_limit(const char* const* names, const char** source) {
    *source = NULL;
    if (0 != strcmp(mca_pml_base_selected_component.pmlm_version.mca_component_name, "ob1")) return 0;
    for (; *names; ++names) {
        const mca_base_var_t* var = NULL;
        const mca_base_var_storage_t* value = NULL;
        int index = -1;
        if (OPAL_SUCCESS != mca_base_var_find_by_name(*names, &index) || index < 0 ||
            OPAL_SUCCESS != mca_base_var_get(index, &var) || NULL == var ||
            OPAL_SUCCESS != mca_base_var_get_value(index, &value, NULL, NULL) || NULL == value)
            continue;
        size_t limit = 0;
        switch (var->mbv_type) {
        case MCA_BASE_VAR_TYPE_SIZE_T: limit = value->sizetval; break;
        case MCA_BASE_VAR_TYPE_INT: limit = value->intval > 0 ? (size_t)value->intval : 0; break;
        case MCA_BASE_VAR_TYPE_UNSIGNED_INT: limit = value->uintval; break;
        case MCA_BASE_VAR_TYPE_UNSIGNED_LONG: limit = value->ulval; break;
        case MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG: limit = (size_t)value->ullval; break;
        default: break;
        }
        if (limit > 0) {
            *source = *names;
            return limit;
        }
    }
    return 0;
}

int mca_coll_hieragg_init_query(bool enable_progress_threads, bool enable_mpi_threads) {
    (void)enable_progress_threads;
    mca_coll_hieragg_component_t* m = &mca_coll_hieragg_component;
    if (m->core_ready) return OMPI_SUCCESS;
    char mismatch[256];
    if (!mca_coll_hieragg_layout_check(mismatch, sizeof mismatch)) {
        /* Built against another Open MPI: stay out of the job rather than misread it. */
        if (0 == opal_proc_local_get()->proc_name.vpid)
            opal_output(0, "coll:hieragg: WARNING: %s; hieragg disables itself (rebuild it against "
                           "this Open MPI's headers)", mismatch);
        return OMPI_ERR_NOT_SUPPORTED;
    }
    /* The PML carries only so many tag bits (pml ucx 24, mtl ofi's ofi_tag_2 mode 20):
     * hieragg's tags are laid out within its MPI_TAG_UB, or it stays out of the job. */
    {
        char why[256];
        if (0 == hieragg_tag_window(mca_pml.pml_max_tag, HIERAGG_TAG_TOP, why, sizeof why)) {
            if (0 == opal_proc_local_get()->proc_name.vpid)
                opal_output(0, "coll:hieragg: WARNING: %s; hieragg disables itself (the other coll "
                               "components serve every communicator)", why);
            return OMPI_ERR_NOT_SUPPORTED;
        }
    }
    hieragg_transport t;
    hieragg_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.pml_max_tag = mca_pml.pml_max_tag;
    /* MPI_Init_thread set the level before the coll components are queried; either says. */
    cfg.thread_multiple = enable_mpi_threads || ompi_mpi_thread_multiple ? 1 : 0;
    mca_coll_hieragg_transport(&t);
    /* An empty value reaches the core as "" so that it warns and falls back like any bad value. */
    cfg.split = m->split ? m->split : "";
    cfg.tag_top = HIERAGG_TAG_TOP;
    cfg.verbose = m->verbose;
    if (m->segment_size < 64) {
        /* Every process reads the same value: only the first one says so. */
        if (0 == opal_proc_local_get()->proc_name.vpid)
            opal_output(0, "coll:hieragg: WARNING: coll_hieragg_segment_size=%d is below 64 bytes; "
                           "using 65536", m->segment_size);
        m->segment_size = 64 * 1024;
    }
    cfg.segment_size = (size_t)m->segment_size;
    cfg.hierarchy = mca_coll_hieragg_switch_value("hierarchy", &m->hierarchy);
    cfg.reproducible = m->reproducible;
    /* Accumulators travel as opaque 32-byte elements (the same layout on every rank). */
    if (HIERAGG_REPRODUCIBLE_STRONG == m->reproducible && NULL == m->accumulator_type &&
        OMPI_SUCCESS == ompi_datatype_create_contiguous(HIERAGG_ACCUMULATOR_BYTES, &ompi_mpi_byte.dt,
                                                        &m->accumulator_type))
        ompi_datatype_commit(&m->accumulator_type);
    t.accumulator_type = m->accumulator_type;
    cfg.max_temp_bytes = m->max_temp_bytes;
    cfg.switch_entries = m->switch_entries;
    cfg.switch_degree = m->switch_degree;
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k) cfg.algorithm[k] = m->algorithm[k];
    for (int l = 0; l < HIERAGG_LINK_CLASS_COUNT; ++l) {
        cfg.link_cost[l] = m->link_cost[l];
        cfg.link_cost_set[l] = mca_coll_hieragg_cost_set_bits(m->link_cost_index[l], &m->link_cost[l]);
    }
    cfg.ofi_cost_set = mca_coll_hieragg_cost_set_bits(m->ofi_cost_index, &m->ofi_cost);
    cfg.network_exchange_us = m->network_exchange;
    cfg.network_exchange_set = mca_coll_hieragg_cost_set_explicitly(m->network_exchange_index, m->network_exchange);
    cfg.autocalibrate = mca_coll_hieragg_switch_value("cost_autocalibrate", &m->autocalibrate);
    static const char* const network_eager[] = {"btl_tcp_eager_limit", NULL};
    static const char* const node_eager[] = {"btl_vader_eager_limit", "btl_sm_eager_limit", NULL};
    cfg.network_eager_limit = hieragg_eager_limit(network_eager, &cfg.network_eager_source);
    cfg.node_eager_limit = hieragg_eager_limit(node_eager, &cfg.node_eager_source);
    cfg.offload = m->offload;
    cfg.ofi_provider = m->ofi_provider;
    cfg.ofi_manual_progress = m->ofi_manual_progress ? 1 : 0;
    cfg.ofi_cost = m->ofi_cost;
    cfg.ofi_join_timeout = m->ofi_join_timeout;
    cfg.ofi_op_timeout = m->ofi_op_timeout;
    cfg.ofi_inject_error = m->ofi_inject_error;
    cfg.tag_window = m->tag_window > 0 ? (unsigned)m->tag_window : 0u;
    cfg.rules_file = m->rules_file;
    /* More ranks than cores on this node make every hand-off inside it wait for a
     * reschedule: the core raises the node link's start-up (docs/selection.md). */
    cfg.node_ranks = (int)opal_process_info.num_local_peers + 1;
    {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        cfg.node_cores = cores > 0 ? (int)cores : 0;
    }
    if (0 != hieragg_core_init(&t, &cfg)) return OMPI_ERR_OUT_OF_RESOURCE;
    opal_progress_register(hieragg_progress);
#if HIERAGG_ULFM
    mca_coll_hieragg_agreement_init();
#endif
    m->core_ready = 1;
    return OMPI_SUCCESS;
}
