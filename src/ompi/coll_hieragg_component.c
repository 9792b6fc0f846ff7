/*
 * Component: MCA parameters (all visible in ompi_info --param coll hieragg
 * --level 9), core start-up, progress registration and the communicator query.
 */
#include "coll_hieragg.h"

#include <stdio.h>
#include <string.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"
#include "ompi/datatype/ompi_datatype.h"

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
    .priority = 5,
    .verbose = 0,
    .split = NULL,
    .segment_size = 64 * 1024,
    .hierarchy = 1,
    .reproducible = HIERAGG_REPRODUCIBLE_ORDER,
    .accumulator_type = NULL,
    .max_temp_bytes = 0,
    .output = -1,
};

/* Enum of algorithm names for one collective's override, from the core's table. */
static mca_base_var_enum_t* algorithm_enum(hieragg_coll_kind kind) {
    static mca_base_var_enum_value_t values[HIERAGG_COLL_KIND_COUNT][17];
    static char names[HIERAGG_COLL_KIND_COUNT][512];
    char enum_name[96];
    mca_base_var_enum_t* e = NULL;
    int n = 0;
    snprintf(names[kind], sizeof names[kind], "%s", hieragg_algorithm_names(kind));
    for (char* tok = strtok(names[kind], ","); tok && n < 16; tok = strtok(NULL, ",")) {
        values[kind][n].value = n;
        values[kind][n].string = tok;
        ++n;
    }
    values[kind][n].value = 0;
    values[kind][n].string = NULL;
    snprintf(enum_name, sizeof enum_name, "coll_hieragg_%s_algorithms", hieragg_coll_name(kind));
    if (OPAL_SUCCESS != mca_base_var_enum_create(enum_name, values[kind], &e)) return NULL;
    return e;
}

static int hieragg_register(void) {
    mca_base_component_t* c = &mca_coll_hieragg_component.super.collm_version;
    mca_coll_hieragg_component_t* m = &mca_coll_hieragg_component;

    (void)mca_base_component_var_register(c, "priority",
        "Priority of the hieragg coll component (set it above the others, e.g. 100, to use "
        "hieragg while other components stay loaded; a negative value disables it)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY, &m->priority);
    (void)mca_base_component_var_register(c, "verbose",
        "Verbosity: 0 = warnings only, 1 = each communicator's decomposition (levels, subspace "
        "sizes, leaders) once, 2 = also the algorithm chosen for each new call signature",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &m->verbose);
    m->split = "node";
    (void)mca_base_component_var_register(c, "split",
        "Decomposition levels, inner level first, comma-separated: numa | node | virtual:N "
        "(blocks of N consecutive ranks) | roundrobin:N (rank mod N) | file:PATH (explicit "
        "groups of world ranks, one group per line) | topology:PATH (Slurm topology.conf leaf "
        "switches). Example: numa,node. A bad value warns and falls back to node",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY, &m->split);
    (void)mca_base_component_var_register(c, "segment_size",
        "Bytes per pipeline segment and per reduction pulse; bounds the temporary memory "
        "of one collective (must be >= 64)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &m->segment_size);
    (void)mca_base_component_var_register(c, "hierarchy",
        "1: run collectives over the decomposition when it splits the communicator; "
        "0: always run the flat algorithms",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &m->hierarchy);
    {
        static mca_base_var_enum_value_t repro_values[] = {
            {HIERAGG_REPRODUCIBLE_NONE, "none"},
            {HIERAGG_REPRODUCIBLE_ORDER, "order"},
            {HIERAGG_REPRODUCIBLE_STRONG, "strong"},
            {0, NULL}};
        mca_base_var_enum_t* e = NULL;
        (void)mca_base_var_enum_create("coll_hieragg_reproducible_modes", repro_values, &e);
        (void)mca_base_component_var_register(c, "reproducible",
            "Reproducibility of reductions: order = fixed combination order (the same bits for "
            "the same communicator, decomposition and root); none = no promise (today the same "
            "as order); strong = MPI_SUM of MPI_DOUBLE/MPI_FLOAT gives the same bits for the "
            "same multiset of contributions whatever the decomposition, root, placement or "
            "process count (exact binned accumulators, rounded once; see docs/reproducibility.md)",
            MCA_BASE_VAR_TYPE_INT, e, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
            &m->reproducible);
        if (e) OBJ_RELEASE(e);
    }
    (void)mca_base_component_var_register(c, "max_temp_bytes",
        "Temporary memory one collective may allocate per process (0 = no limit). A call "
        "whose schedule needs more runs with smaller pulses or the flat algorithm; if none "
        "fits, it fails with MPI_ERR_NO_MEM on every process (nothing is sent)",
        MCA_BASE_VAR_TYPE_SIZE_T, NULL, 0, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
        &m->max_temp_bytes);
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k) {
        char name[96], help[640];
        mca_base_var_enum_t* e = algorithm_enum((hieragg_coll_kind)k);
        snprintf(name, sizeof name, "%s_algorithm", hieragg_coll_name((hieragg_coll_kind)k));
        snprintf(help, sizeof help,
                 "Algorithm for %s (0 = auto: chosen per call). Accepted: %s",
                 hieragg_coll_name((hieragg_coll_kind)k), hieragg_algorithm_names((hieragg_coll_kind)k));
        m->algorithm[k] = 0;
        (void)mca_base_component_var_register(c, name, help, MCA_BASE_VAR_TYPE_INT, e, 0, 0,
                                              OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
                                              &m->algorithm[k]);
        if (e) OBJ_RELEASE(e);
    }
    /* The selection's cost model, per link class (docs/selection.md; hieragg-calibrate
     * measures them and prints these lines). */
    for (int l = 0; l < HIERAGG_LINK_CLASS_COUNT; ++l) {
        static const char* what[4] = {
            "start-up of one message [us]", "transfer time [ns per byte]",
            "processing of one message at the receiver [us]", "reduction time [ns per byte]"};
        static const char* param[4] = {"alpha", "beta", "theta", "gamma"};
        static const char* where[HIERAGG_LINK_CLASS_COUNT] = {
            "inside a NUMA domain", "inside a node", "between nodes", "between switches"};
        hieragg_link_cost* lc = &m->link_cost[l];
        double* field[4] = {&lc->alpha_us, &lc->beta_ns_per_byte, &lc->theta_us, &lc->gamma_ns_per_byte};
        *lc = hieragg_default_link_cost(l);
        for (int f = 0; f < 4; ++f) {
            char name[96], help[256];
            snprintf(name, sizeof name, "cost_%s_%s", hieragg_link_class_name(l), param[f]);
            snprintf(help, sizeof help, "Cost model (selection of algorithm, radix and chunk): %s %s; "
                     "negative = built-in default", what[f], where[l]);
            (void)mca_base_component_var_register(c, name, help, MCA_BASE_VAR_TYPE_DOUBLE, NULL, 0, 0,
                                                  OPAL_INFO_LVL_7, MCA_BASE_VAR_SCOPE_READONLY, field[f]);
        }
    }
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
        hieragg_core_fini();
        m->core_ready = 0;
    }
    if (m->accumulator_type) ompi_datatype_destroy(&m->accumulator_type);
    if (m->output >= 0) opal_output_close(m->output);
    m->output = -1;
    return OMPI_SUCCESS;
}

int mca_coll_hieragg_init_query(bool enable_progress_threads, bool enable_mpi_threads) {
    (void)enable_progress_threads;
    (void)enable_mpi_threads;
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
    hieragg_transport t;
    hieragg_config cfg;
    memset(&cfg, 0, sizeof cfg);
    mca_coll_hieragg_transport(&t);
    /* An empty value reaches the core as "" so that it warns and falls back like any bad value. */
    cfg.split = m->split ? m->split : "";
    cfg.verbose = m->verbose;
    if (m->segment_size < 64) {
        /* Every process reads the same value: only the first one says so. */
        if (0 == opal_proc_local_get()->proc_name.vpid)
            opal_output(0, "coll:hieragg: WARNING: coll_hieragg_segment_size=%d is below 64 bytes; "
                           "using 65536", m->segment_size);
        m->segment_size = 64 * 1024;
    }
    cfg.segment_size = (size_t)m->segment_size;
    if (m->hierarchy != 0 && m->hierarchy != 1) {
        if (0 == opal_proc_local_get()->proc_name.vpid)
            opal_output(0, "coll:hieragg: WARNING: coll_hieragg_hierarchy=%d is not 0 or 1; using 1",
                        m->hierarchy);
        m->hierarchy = 1;
    }
    cfg.hierarchy = m->hierarchy;
    cfg.reproducible = m->reproducible;
    /* Accumulators travel as opaque 32-byte elements (the same layout on every rank). */
    if (HIERAGG_REPRODUCIBLE_STRONG == m->reproducible && NULL == m->accumulator_type &&
        OMPI_SUCCESS == ompi_datatype_create_contiguous(HIERAGG_ACCUMULATOR_BYTES, &ompi_mpi_byte.dt,
                                                        &m->accumulator_type))
        ompi_datatype_commit(&m->accumulator_type);
    t.accumulator_type = m->accumulator_type;
    cfg.max_temp_bytes = m->max_temp_bytes;
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k) cfg.algorithm[k] = m->algorithm[k];
    for (int l = 0; l < HIERAGG_LINK_CLASS_COUNT; ++l) cfg.link_cost[l] = m->link_cost[l];
    if (0 != hieragg_core_init(&t, &cfg)) return OMPI_ERR_OUT_OF_RESOURCE;
    opal_progress_register(hieragg_progress);
    m->core_ready = 1;
    return OMPI_SUCCESS;
}
