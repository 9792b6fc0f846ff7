/*
 * Component: MCA parameters (all visible in ompi_info --param coll hieragg
 * --level 9), core start-up, progress registration and the communicator query.
 */
#include "coll_hieragg.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "opal/mca/base/mca_base_pvar.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"
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

/* ---- MCA parameters (docs/user-guide.md) ------------------------------------------- */

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

/* coll_hieragg_<collective>_algorithm: one override per collective, its names from the core. */
static void register_algorithm_params(mca_base_component_t* c, mca_coll_hieragg_component_t* m) {
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
}

/* coll_hieragg_cost_<prefix>_{alpha,beta,theta,gamma}: the four terms of one link's cost (its
 * defaults already in *lc), each described as head + what[term] + tail; their variable indexes
 * go to index[] (hieragg_cost_set_bits). */
static void register_cost_terms(mca_base_component_t* c, const char* prefix, const char* head,
                                const char* const what[4], const char* tail, hieragg_link_cost* lc,
                                int index[4]) {
    static const char* const term[4] = {"alpha", "beta", "theta", "gamma"};
    double* field[4] = {&lc->alpha_us, &lc->beta_ns_per_byte, &lc->theta_us, &lc->gamma_ns_per_byte};
    for (int f = 0; f < 4; ++f) {
        char name[96], help[320];
        snprintf(name, sizeof name, "cost_%s_%s", prefix, term[f]);
        snprintf(help, sizeof help, "%s%s%s; negative = built-in default", head, what[f], tail);
        index[f] = mca_base_component_var_register(c, name, help, MCA_BASE_VAR_TYPE_DOUBLE, NULL, 0, 0,
                                                   OPAL_INFO_LVL_7, MCA_BASE_VAR_SCOPE_READONLY, field[f]);
    }
}

/* The selection's cost model, per link class (docs/selection.md; hieragg-calibrate measures
 * them and prints these lines). */
static void register_link_cost_params(mca_base_component_t* c, mca_coll_hieragg_component_t* m) {
    static const char* const what[4] = {
        "start-up of one message [us]", "transfer time [ns per byte]",
        "processing of one message at the receiver [us]", "reduction time [ns per byte]"};
    static const char* const where[HIERAGG_LINK_CLASS_COUNT] = {
        "inside a NUMA domain", "inside a node", "between nodes", "between switches"};
    for (int l = 0; l < HIERAGG_LINK_CLASS_COUNT; ++l) {
        char tail[64];
        snprintf(tail, sizeof tail, " %s", where[l]);
        m->link_cost[l] = hieragg_default_link_cost(l);
        register_cost_terms(c, hieragg_link_class_name(l), "Cost model (selection of algorithm, radix and chunk): ",
                            what, tail, &m->link_cost[l], m->link_cost_index[l]);
    }
}

/* The cost of one offloaded round (docs/offload.md), coll_hieragg_cost_ofi_*. */
static void register_offload_cost_params(mca_base_component_t* c, mca_coll_hieragg_component_t* m) {
    static const char* const what[4] = {"start-up of one round [us]", "transfer time [ns per byte]",
                                        "unused [us]", "reduction time [ns per byte]"};
    m->ofi_cost = hieragg_default_offload_cost();
    register_cost_terms(c, "ofi", "Cost model: ", what, " of an offloaded collective among the leaders",
                        &m->ofi_cost, m->ofi_cost_index);
}

static const mca_base_var_enum_value_t reproducible_values[] = {
    {HIERAGG_REPRODUCIBLE_NONE, "none"},
    {HIERAGG_REPRODUCIBLE_ORDER, "order"},
    {HIERAGG_REPRODUCIBLE_STRONG, "strong"},
    {0, NULL}};
static const mca_base_var_enum_value_t offload_values[] = {
    {HIERAGG_OFFLOAD_AUTO, "auto"}, {HIERAGG_OFFLOAD_OFI, "ofi"}, {HIERAGG_OFFLOAD_OFF, "off"}, {0, NULL}};

/* One MCA parameter as ompi_info lists it. Its value lands in `storage` (a field of the
 * component), which holds `initial` (the default) when it is registered; an enum parameter
 * accepts the names of `enum_values`; `index`, when set, keeps the variable's index for
 * init_query's source lookups. A row with `expand` registers a group of parameters whose
 * names are made at registration instead (per collective, per link class and cost term). */
typedef struct hieragg_param {
    const char* name;
    const char* help;
    mca_base_var_type_t type;
    mca_base_var_info_lvl_t level;
    void* storage;
    mca_base_var_storage_t initial;
    const char* enum_name;
    const mca_base_var_enum_value_t* enum_values;
    int* index;
    void (*expand)(mca_base_component_t* c, mca_coll_hieragg_component_t* m);
} hieragg_param;

#define M_ (&mca_coll_hieragg_component)
/* In registration order, which is the order ompi_info lists them in. */
static const hieragg_param hieragg_params[] = {
    {"priority",
     "Priority of the hieragg coll component (set it above the others, e.g. 100, to use "
     "hieragg while other components stay loaded; a negative value disables it)",
     MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_6, &M_->priority, {.intval = 5}},
    {"verbose",
     "Verbosity: 0 = warnings only, 1 = each communicator's decomposition (levels, subspace "
     "sizes, leaders) once, 2 = also the algorithm chosen for each new call signature",
     MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_5, &M_->verbose, {.intval = 0}},
    {"split",
     "Decomposition levels, inner level first, comma-separated: numa | node | virtual:N "
     "(blocks of N consecutive ranks) | roundrobin:N (rank mod N) | file:PATH (explicit "
     "groups of world ranks, one group per line) | topology:PATH (Slurm topology.conf leaf "
     "switches). Example: numa,node. A bad value warns and falls back to node",
     MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_4, &M_->split, {.stringval = "node"}},
    {"segment_size",
     "Bytes per pipeline segment and per reduction pulse; bounds the temporary memory "
     "of one collective (must be >= 64)",
     MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_5, &M_->segment_size, {.intval = 64 * 1024}},
    {"hierarchy",
     "1: run collectives over the decomposition when it splits the communicator; "
     "0: always run the flat algorithms",
     MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_5, &M_->hierarchy, {.intval = 1}},
    {"reproducible",
     "Reproducibility of reductions: order = fixed combination order (the same bits for "
     "the same communicator, decomposition and root); none = no promise (today the same "
     "as order); strong = MPI_SUM of MPI_DOUBLE/MPI_FLOAT gives the same bits for the "
     "same multiset of contributions whatever the decomposition, root, placement or "
     "process count (exact binned accumulators, rounded once; see docs/reproducibility.md)",
     MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_4, &M_->reproducible, {.intval = HIERAGG_REPRODUCIBLE_ORDER},
     "coll_hieragg_reproducible_modes", reproducible_values},
    {"max_temp_bytes",
     "Temporary memory one collective may allocate per process (0 = no limit). A call "
     "whose schedule needs more runs with smaller pulses or an algorithm that stages less; "
     "if none fits, every process runs the one needing least and rank 0 warns once",
     MCA_BASE_VAR_TYPE_SIZE_T, OPAL_INFO_LVL_6, &M_->max_temp_bytes, {.sizetval = 0}},
    {"switch_entries",
     "Type II (switch) trees, the 'type2' algorithm of bcast/reduce/allreduce with "
     "coll_hieragg_split=topology:PATH: aggregation entries each switch offers one "
     "communicator's tree (a kept switch uses one; its proxy process aggregates for it). "
     "0 = type II is never available and the type I tree (hier_knomial) runs",
     MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_5, &M_->switch_entries, {.intval = 16}},
    {"switch_degree",
     "Type II (switch) trees: largest number of children of one switch (K of SPEC 3.2; "
     "the minimum-cost tree keeps as few switches as this allows). Below 2, or too small "
     "for any tree, type II is not available and the type I tree runs",
     MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_5, &M_->switch_degree, {.intval = 32}},
    {.expand = register_algorithm_params},
    {.expand = register_link_cost_params},
    {"cost_network_exchange",
     "Cost model: one round in which every leader both sends and receives across the network "
     "at once (dissemination barrier, butterfly and ring allreduce, recursive-doubling scan, "
     "allgather rounds and ring steps) [us]; negative = measured at setup with the network's alpha and beta "
     "(coll_hieragg_cost_autocalibrate), else alpha + theta between nodes",
     MCA_BASE_VAR_TYPE_DOUBLE, OPAL_INFO_LVL_7, &M_->network_exchange, {.lfval = -1.0}, NULL, NULL,
     &M_->network_exchange_index},
    {"cost_autocalibrate",
     "1: measure the network link (alpha, beta between nodes) with a few ping-pongs between "
     "leaders when the first communicator spanning several nodes is set up (a few ms, once per "
     "process), agree on one value on every rank and use it in the cost model, except for "
     "coll_hieragg_cost_network_alpha/_beta set explicitly and when coll_hieragg_rules_file is "
     "given; 0: use the coll_hieragg_cost_network_* values (built-in defaults)",
     MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_5, &M_->autocalibrate, {.intval = 1}},
    /* Offload (docs/offload.md). */
    {"offload",
     "Offloaded collectives over the leader space (libfabric): auto = open them where the cost "
     "model (coll_hieragg_cost_ofi_*) says they can beat point-to-point, ofi = wherever the "
     "provider allows, off = never. Without libfabric or when opening fails: point-to-point",
     MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_4, &M_->offload, {.intval = HIERAGG_OFFLOAD_AUTO},
     "coll_hieragg_offload_modes", offload_values},
    {"ofi_provider",
     "libfabric provider for offloaded collectives, e.g. \"tcp;ofi_rxm\" (empty = the first "
     "that offers FI_COLLECTIVE)",
     MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_4, &M_->ofi_provider, {.stringval = ""}},
    {"ofi_join_timeout",
     "Seconds a leader waits for fi_join_collective at communicator setup before the "
     "communicator falls back to point-to-point (every rank agrees, one warning)",
     MCA_BASE_VAR_TYPE_DOUBLE, OPAL_INFO_LVL_5, &M_->ofi_join_timeout, {.lfval = 60.0}},
    {"ofi_op_timeout",
     "Seconds an offloaded operation may stay incomplete before its leader declares the fabric "
     "failed and the communicator's leaders re-run it, and run every later one, over "
     "point-to-point (<= 0: no timeout)",
     MCA_BASE_VAR_TYPE_DOUBLE, OPAL_INFO_LVL_5, &M_->ofi_op_timeout, {.lfval = 300.0}},
    {"ofi_inject_error",
     "For testing only: \"[hang:]<n>[:<world rank>]\" makes the n-th offloaded operation of "
     "the process fail (on that world rank; on every leader without a rank), to exercise the "
     "recovery over point-to-point; hang: it never completes instead (coll_hieragg_ofi_op_timeout)",
     MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_9, &M_->ofi_inject_error, {.stringval = ""}},
    {"tag_window",
     "For testing, or a site that wants fewer tags: at most this many call numbers per pair of "
     "ranks before they wrap (rounded down to a power of two, >= 1; 0 = what the PML's "
     "MPI_TAG_UB allows: 65536 with 32-bit tags, 256 under pml ucx). A call whose number would "
     "reuse the tags of a call still in flight waits, inside hieragg, for that call to complete",
     MCA_BASE_VAR_TYPE_INT, OPAL_INFO_LVL_9, &M_->tag_window, {.intval = 0}},
    {"ofi_manual_progress",
     "Triggered operations (a provider with FI_TRIGGER, e.g. sockets): false = the provider "
     "progresses them on its own (its thread, or the NIC), true = ask for manual progress, so "
     "they advance when hieragg reads the counters (faster where cores are oversubscribed)",
     MCA_BASE_VAR_TYPE_BOOL, OPAL_INFO_LVL_5, &M_->ofi_manual_progress, {.boolval = false}},
    {.expand = register_offload_cost_params},
    /* Tuning (issue 9; docs/tuning.md). */
    {"rules_file",
     "Selection rules fitted by hieragg-tune (JSON, schema hieragg-rules version 1): per "
     "collective, candidate algorithms with fitted performance functions, valid ranges and a "
     "threshold. Inside a rule's range the first candidate reaching the threshold runs; outside "
     "it, or when the file is missing or bad (one warning), the cost model decides. Empty = none",
     MCA_BASE_VAR_TYPE_STRING, OPAL_INFO_LVL_5, &M_->rules_file, {.stringval = ""}},
};
#undef M_

/* Writes a parameter's default into its storage, as its type lays it out. */
static void set_initial(const hieragg_param* p) {
    switch (p->type) {
    case MCA_BASE_VAR_TYPE_INT: *(int*)p->storage = p->initial.intval; break;
    case MCA_BASE_VAR_TYPE_SIZE_T: *(size_t*)p->storage = p->initial.sizetval; break;
    case MCA_BASE_VAR_TYPE_BOOL: *(bool*)p->storage = p->initial.boolval; break;
    case MCA_BASE_VAR_TYPE_DOUBLE: *(double*)p->storage = p->initial.lfval; break;
    case MCA_BASE_VAR_TYPE_STRING: *(char**)p->storage = p->initial.stringval; break;
    default: break;
    }
}

static void register_params(mca_base_component_t* c, mca_coll_hieragg_component_t* m) {
    for (size_t i = 0; i < sizeof hieragg_params / sizeof hieragg_params[0]; ++i) {
        const hieragg_param* p = &hieragg_params[i];
        if (p->expand) {
            p->expand(c, m);
            continue;
        }
        mca_base_var_enum_t* e = NULL;
        if (p->enum_values && OPAL_SUCCESS != mca_base_var_enum_create(p->enum_name, p->enum_values, &e)) e = NULL;
        set_initial(p);
        const int index = mca_base_component_var_register(c, p->name, p->help, p->type, e, 0, 0, p->level,
                                                          MCA_BASE_VAR_SCOPE_READONLY, p->storage);
        if (p->index) *p->index = index;
        if (e) OBJ_RELEASE(e);
    }
}

/* 1 when the user set the cost variable `index` (any source but the default: command line,
 * environment, a params file such as hieragg-calibrate writes, a tune file) to `value` >= 0.
 * The automatic calibration leaves those alone. */
static int cost_set_explicitly(int index, double value) {
    mca_base_var_source_t source = MCA_BASE_VAR_SOURCE_DEFAULT;
    return index >= 0 && OPAL_SUCCESS == mca_base_var_get_value(index, NULL, &source, NULL) &&
           MCA_BASE_VAR_SOURCE_DEFAULT != source && value >= 0;
}

/* Bits HIERAGG_COST_SET_*: which of the four cost variables `index` were set explicitly. */
static int hieragg_cost_set_bits(const int index[4], const hieragg_link_cost* lc) {
    const double value[4] = {lc->alpha_us, lc->beta_ns_per_byte, lc->theta_us, lc->gamma_ns_per_byte};
    int bits = 0;
    for (int f = 0; f < 4; ++f)
        if (cost_set_explicitly(index[f], value[f])) bits |= 1 << f;
    return bits;
}

/* A switch, coll_hieragg_<name>, is 0 or 1: any other value warns (every process reads the
 * same value: only the first one says so) and is taken as 1. */
static int switch_value(const char* name, int* value) {
    if (*value != 0 && *value != 1) {
        if (0 == opal_proc_local_get()->proc_name.vpid)
            opal_output(0, "coll:hieragg: WARNING: coll_hieragg_%s=%d is not 0 or 1; using 1", name, *value);
        *value = 1;
    }
    return *value;
}

/* ---- MPI_T performance variables (issue 9; docs/tuning.md) -------------------------- */
/* Bound to communicators (MPI_T_BIND_MPI_COMM): Open MPI hands get_value the communicator;
 * the core finds its state by that handle. Each variable's ctx is its row below: `get`
 * reads readout `which` (a PVAR_* counter field, a PVAR_LINK_* readout or a collective),
 * `count` values a communicator. */
typedef struct hieragg_pvar {
    const char* name;
    const char* help;
    int cls;  /* MCA_BASE_PVAR_CLASS_* */
    mca_base_var_type_t type;
    int flags; /* MCA_BASE_PVAR_FLAG_* */
    mca_base_get_value_fn_t get;
    int which;
    int count;
} hieragg_pvar;

/* Counter fields: 0..3 bytes[l], 4..7 messages[l], 8 the temporary high water, then the rest. */
enum { PVAR_BYTES = 0, PVAR_MESSAGES = HIERAGG_COUNTER_LEVELS, PVAR_TEMP = 2 * HIERAGG_COUNTER_LEVELS,
       PVAR_SUBSPACES, PVAR_OFFLOADED_OPERATIONS, PVAR_OFFLOADED_BYTES };

static const hieragg_pvar* pvar_row(const mca_base_pvar_t* pvar) { return (const hieragg_pvar*)pvar->ctx; }

static int pvar_bind_notify(mca_base_pvar_t* pvar, mca_base_pvar_event_t event, void* obj, int* count) {
    (void)obj;
    if (MCA_BASE_PVAR_HANDLE_BIND == event) *count = pvar_row(pvar)->count;
    return OMPI_SUCCESS;
}
static int pvar_counter_get(const mca_base_pvar_t* pvar, void* value, void* obj) {
    const int field = pvar_row(pvar)->which;
    unsigned long long* out = (unsigned long long*)value;
    hieragg_comm_counters k;
    hieragg_read_counters(obj, &k);
    if (field == PVAR_OFFLOADED_OPERATIONS || field == PVAR_OFFLOADED_BYTES) {
        out[0] = field == PVAR_OFFLOADED_OPERATIONS ? k.offloaded_operations : k.offloaded_bytes;
    } else if (field == PVAR_TEMP || field == PVAR_SUBSPACES) {
        out[0] = field == PVAR_TEMP ? k.temp_bytes_high_water : k.subspaces;
    } else if (field == PVAR_BYTES || field == PVAR_MESSAGES) {
        out[0] = field == PVAR_BYTES ? k.bytes[0] : k.messages[0];
    } else { /* leader levels 1..: one value per level */
        const uint64_t* src = field == PVAR_BYTES + 1 ? k.bytes : k.messages;
        for (int l = 1; l < HIERAGG_COUNTER_LEVELS; ++l) out[l - 1] = src[l];
    }
    return OMPI_SUCCESS;
}
static int pvar_algorithms_get(const mca_base_pvar_t* pvar, void* value, void* obj) {
    const hieragg_coll_kind kind = (hieragg_coll_kind)pvar_row(pvar)->which;
    uint64_t calls[64];
    const int n = hieragg_read_algorithm_calls(obj, kind, calls, 64);
    for (int i = 0; i < n && i < 64; ++i) ((unsigned long long*)value)[i] = calls[i];
    return OMPI_SUCCESS;
}

/* Which readout of hieragg_read_link_cost (PVAR_LINK_*): the link, and the values it gives
 * in order (indices into hieragg_read_link_cost's values; the row's count says how many). */
enum { PVAR_LINK_NETWORK_COST, PVAR_LINK_NETWORK_EXCHANGE, PVAR_LINK_NODE_COST };
static const struct {
    int link;
    int values[5];
} pvar_link_readouts[] = {
    {2, {0, 1}},          /* network_cost: alpha, beta */
    {2, {2}},             /* network_exchange_round */
    {1, {0, 1, 3, 2, 5}}, /* node_cost: alpha, beta, theta, exchange round, measured */
};
static int pvar_link_cost_get(const mca_base_pvar_t* pvar, void* value, void* obj) {
    double all[HIERAGG_LINK_COST_VALUES];
    const hieragg_pvar* row = pvar_row(pvar);
    hieragg_read_link_cost(obj, pvar_link_readouts[row->which].link, all);
    for (int i = 0; i < row->count; ++i) ((double*)value)[i] = all[pvar_link_readouts[row->which].values[i]];
    return OMPI_SUCCESS;
}
static int pvar_network_calibration_get(const mca_base_pvar_t* pvar, void* value, void* obj) {
    (void)pvar;
    hieragg_read_network_calibration(obj, (double*)value);
    return OMPI_SUCCESS;
}

#define COUNTER MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG, MCA_BASE_PVAR_FLAG_READONLY, pvar_counter_get
#define READOUT(get) \
    MCA_BASE_PVAR_CLASS_GENERIC, MCA_BASE_VAR_TYPE_DOUBLE, MCA_BASE_PVAR_FLAG_READONLY | MCA_BASE_PVAR_FLAG_CONTINUOUS, get
/* In registration order (MPI_T's indexes), before the per-collective algorithm_calls. */
static const hieragg_pvar hieragg_pvars[] = {
    {"subspace_bytes", "Bytes this process sent inside its subspace (the whole communicator when it is "
     "not decomposed) in hieragg's collectives on the communicator",
     MCA_BASE_PVAR_CLASS_COUNTER, COUNTER, PVAR_BYTES, 1},
    {"subspace_messages", "Messages this process sent inside its subspace",
     MCA_BASE_PVAR_CLASS_COUNTER, COUNTER, PVAR_MESSAGES, 1},
    {"leader_bytes", "Bytes this process sent across each leader level (value l-1: to peers in another "
     "level-(l-1) group of the decomposition; 3 values, deeper levels add up in the last)",
     MCA_BASE_PVAR_CLASS_COUNTER, COUNTER, PVAR_BYTES + 1, HIERAGG_COUNTER_LEVELS - 1},
    {"leader_messages", "Messages this process sent across each leader level (as leader_bytes)",
     MCA_BASE_PVAR_CLASS_COUNTER, COUNTER, PVAR_MESSAGES + 1, HIERAGG_COUNTER_LEVELS - 1},
    {"temp_bytes_high_water", "Most temporary memory [bytes] this process's collectives on the "
     "communicator held at once", MCA_BASE_PVAR_CLASS_HIGHWATERMARK, COUNTER, PVAR_TEMP, 1},
    {"subspaces", "Subspaces (level-0 groups) of the communicator's decomposition: 1 when it is not "
     "decomposed, 0 before its first collective", MCA_BASE_PVAR_CLASS_SIZE, COUNTER, PVAR_SUBSPACES, 1},
    {"offloaded_operations", "Offloaded collectives (fi_barrier, fi_broadcast, fi_allreduce among the "
     "leaders; coll_hieragg_offload) this process started on the communicator; their traffic is not in "
     "leader_bytes / leader_messages", MCA_BASE_PVAR_CLASS_COUNTER, COUNTER, PVAR_OFFLOADED_OPERATIONS, 1},
    {"offloaded_bytes", "Payload [bytes] of those offloaded collectives (allreduce: the elements this "
     "process contributed; bcast: the bytes broadcast, padding included; barrier: 0)",
     MCA_BASE_PVAR_CLASS_COUNTER, COUNTER, PVAR_OFFLOADED_BYTES, 1},
    {"network_cost",
     "The network link's cost model parameters on the communicator: value 0 alpha [us], value 1 "
     "beta [ns/B]; measured at setup unless set explicitly (coll_hieragg_cost_autocalibrate)",
     READOUT(pvar_link_cost_get), PVAR_LINK_NETWORK_COST, 2},
    {"network_calibration",
     "What the setup calibration measured on the communicator besides network_cost: value 0 beta "
     "below the eager limit [ns/B], 1 the eager limit [B] past which 2 the rendezvous [us] is added "
     "once per message (0, 0: none), 3 the cost of each further message of a burst [us], 4 the "
     "chooser's band of close predictions (0: nothing measured, the cheapest row wins), 5 1 when the "
     "network was measured, 0 when not (off, rejected, one host)",
     READOUT(pvar_network_calibration_get), 0, HIERAGG_NETWORK_CALIBRATION_VALUES},
    {"network_exchange_round",
     "The cost model's price [us] on the communicator of one round in which every leader sends and "
     "receives across the network at once (coll_hieragg_cost_network_exchange); measured at setup "
     "with network_cost unless set explicitly, else alpha + theta",
     READOUT(pvar_link_cost_get), PVAR_LINK_NETWORK_EXCHANGE, 1},
    {"node_cost",
     "The node link's cost model parameters on the communicator (ranks of one node, shared memory): "
     "value 0 alpha [us], 1 beta [ns/B], 2 theta, the cost of each message [us], 3 one exchange round "
     "[us], 4 1 when measured at setup (coll_hieragg_cost_autocalibrate; explicit "
     "coll_hieragg_cost_node_* values stay), 0 when these are the MCA values",
     READOUT(pvar_link_cost_get), PVAR_LINK_NODE_COST, 5},
};
#undef COUNTER
#undef READOUT

/* Registers the variable of `row` (its ctx) under `name` with `help` (copied by Open MPI). */
static void register_pvar(mca_base_component_t* c, const hieragg_pvar* row, const char* name, const char* help) {
    (void)mca_base_component_pvar_register(c, name, help, OPAL_INFO_LVL_4, row->cls, row->type, NULL,
                                           MCA_BASE_VAR_BIND_MPI_COMM, row->flags, row->get, NULL,
                                           pvar_bind_notify, (void*)row);
}

static void register_pvars(mca_base_component_t* c) {
    for (size_t i = 0; i < sizeof hieragg_pvars / sizeof hieragg_pvars[0]; ++i)
        register_pvar(c, &hieragg_pvars[i], hieragg_pvars[i].name, hieragg_pvars[i].help);
    /* <collective>_algorithm_calls: one value per algorithm of the collective. */
    static hieragg_pvar calls[HIERAGG_COLL_KIND_COUNT];
    for (int k = 0; k < HIERAGG_COLL_KIND_COUNT; ++k) {
        const char* coll = hieragg_coll_name((hieragg_coll_kind)k);
        char name[96], help[640];
        snprintf(name, sizeof name, "%s_algorithm_calls", coll);
        snprintf(help, sizeof help, "Calls of %s on the communicator served by each algorithm: value i counts "
                 "algorithm i+1 of coll_hieragg_%s_algorithm (%s); a call whose levels ran different "
                 "algorithms counts for each", coll, coll, hieragg_algorithm_names((hieragg_coll_kind)k));
        calls[k] = (hieragg_pvar){NULL, NULL, MCA_BASE_PVAR_CLASS_COUNTER, MCA_BASE_VAR_TYPE_UNSIGNED_LONG_LONG,
                                  MCA_BASE_PVAR_FLAG_READONLY, pvar_algorithms_get, k,
                                  hieragg_algorithm_count((hieragg_coll_kind)k)};
        register_pvar(c, &calls[k], name, help);
    }
}

static int hieragg_register(void) {
    mca_base_component_t* c = &mca_coll_hieragg_component.super.collm_version;
    register_params(c, &mca_coll_hieragg_component);
    register_pvars(c);
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
    cfg.hierarchy = switch_value("hierarchy", &m->hierarchy);
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
        cfg.link_cost_set[l] = hieragg_cost_set_bits(m->link_cost_index[l], &m->link_cost[l]);
    }
    cfg.ofi_cost_set = hieragg_cost_set_bits(m->ofi_cost_index, &m->ofi_cost);
    cfg.network_exchange_us = m->network_exchange;
    cfg.network_exchange_set = cost_set_explicitly(m->network_exchange_index, m->network_exchange);
    cfg.autocalibrate = switch_value("cost_autocalibrate", &m->autocalibrate);
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
