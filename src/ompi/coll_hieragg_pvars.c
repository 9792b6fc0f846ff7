/*
 * MPI_T performance variables (issue 9; docs/tuning.md): their rows, the
 * getters that read them from the core, and their registration.
 */
#include "coll_hieragg.h"

#include <stdint.h>
#include <stdio.h>

#include "opal/mca/base/mca_base_pvar.h"

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

void mca_coll_hieragg_register_pvars(mca_base_component_t* c) {
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
