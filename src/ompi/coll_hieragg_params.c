/*
 * MCA parameters (all visible in ompi_info --param coll hieragg --level 9;
 * docs/user-guide.md): their table, its registration into the component's
 * fields, and what init_query reads back (which cost values the user set
 * explicitly, the 0/1 switches).
 */
#include "coll_hieragg.h"

#include <stdio.h>
#include <string.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"


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
 * go to index[] (mca_coll_hieragg_cost_set_bits). */
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

void mca_coll_hieragg_register_params(mca_base_component_t* c, mca_coll_hieragg_component_t* m) {
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
int mca_coll_hieragg_cost_set_explicitly(int index, double value) {
    mca_base_var_source_t source = MCA_BASE_VAR_SOURCE_DEFAULT;
    return index >= 0 && OPAL_SUCCESS == mca_base_var_get_value(index, NULL, &source, NULL) &&
           MCA_BASE_VAR_SOURCE_DEFAULT != source && value >= 0;
}

/* Bits HIERAGG_COST_SET_*: which of the four cost variables `index` were set explicitly. */
int mca_coll_hieragg_cost_set_bits(const int index[4], const hieragg_link_cost* lc) {
    const double value[4] = {lc->alpha_us, lc->beta_ns_per_byte, lc->theta_us, lc->gamma_ns_per_byte};
    int bits = 0;
    for (int f = 0; f < 4; ++f)
        if (mca_coll_hieragg_cost_set_explicitly(index[f], value[f])) bits |= 1 << f;
    return bits;
}

/* A switch, coll_hieragg_<name>, is 0 or 1: any other value warns (every process reads the
 * same value: only the first one says so) and is taken as 1. */
int mca_coll_hieragg_switch_value(const char* name, int* value) {
    if (*value != 0 && *value != 1) {
        if (0 == opal_proc_local_get()->proc_name.vpid)
            opal_output(0, "coll:hieragg: WARNING: coll_hieragg_%s=%d is not 0 or 1; using 1", name, *value);
        *value = 1;
    }
    return *value;
}
