/*
 * The Open MPI side of hieragg: component and module structures. This C shim
 * is the only code that includes Open MPI internals; everything else is the
 * C++ core behind include/hieragg/abi.h.
 */
#ifndef MCA_COLL_HIERAGG_H
#define MCA_COLL_HIERAGG_H

#include "ompi_config.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"
#include "coll_hieragg_compat.h"

#include "hieragg/abi.h"

BEGIN_C_DECLS

typedef struct mca_coll_hieragg_component_t {
    mca_coll_base_component_t super; /* 2.0.0 on 4.1, 2.4.0 on 5.0 */
    int priority;
    int verbose;
    char* split;
    int segment_size;
    int hierarchy;
    int reproducible;     /* HIERAGG_REPRODUCIBLE_* */
    struct ompi_datatype_t* accumulator_type; /* for reproducible=strong, NULL until init_query */
    size_t max_temp_bytes;
    int switch_entries;   /* coll_hieragg_switch_entries: type II aggregation entries per switch */
    int switch_degree;    /* coll_hieragg_switch_degree: children per switch of a type II tree */
    int algorithm[HIERAGG_COLL_KIND_COUNT];
    hieragg_link_cost link_cost[HIERAGG_LINK_CLASS_COUNT]; /* coll_hieragg_cost_<link>_<param> */
    int link_cost_index[HIERAGG_LINK_CLASS_COUNT][4]; /* their MCA variable indexes (source lookup) */
    int autocalibrate;    /* coll_hieragg_cost_autocalibrate */
    double network_exchange;    /* coll_hieragg_cost_network_exchange [us], < 0: measured or alpha + theta */
    int network_exchange_index; /* its MCA variable index (source lookup) */
    int ofi_cost_index[4]; /* MCA variable indexes of coll_hieragg_cost_ofi_* */
    int offload;          /* coll_hieragg_offload: HIERAGG_OFFLOAD_* */
    char* ofi_provider;   /* coll_hieragg_ofi_provider */
    bool ofi_manual_progress; /* coll_hieragg_ofi_manual_progress */
    hieragg_link_cost ofi_cost; /* coll_hieragg_cost_ofi_* */
    double ofi_join_timeout;    /* coll_hieragg_ofi_join_timeout */
    double ofi_op_timeout;      /* coll_hieragg_ofi_op_timeout */
    char* ofi_inject_error;     /* coll_hieragg_ofi_inject_error (testing) */
    int tag_window;       /* coll_hieragg_tag_window (testing/site): cap on the call-number window */
    char* rules_file;     /* coll_hieragg_rules_file (tuning: docs/tuning.md) */
    int output;           /* opal_output stream for verbose messages */
    int core_ready;       /* hieragg_core_init succeeded */
} mca_coll_hieragg_component_t;

HIERAGG_COMPONENT_EXPORT extern mca_coll_hieragg_component_t mca_coll_hieragg_component;

typedef struct mca_coll_hieragg_module_t {
    mca_coll_base_module_t super;
    hieragg_comm* state;
    mca_coll_base_module_t* agreement; /* ULFM: coll/ftagree's module hieragg forwards to, or NULL */
} mca_coll_hieragg_module_t;
OBJ_CLASS_DECLARATION(mca_coll_hieragg_module_t);

int mca_coll_hieragg_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t* mca_coll_hieragg_comm_query(struct ompi_communicator_t* comm, int* priority);

/* MCA parameters (coll_hieragg_params.c): registers every coll_hieragg_* parameter of
 * component C, each written with its default into its field of M. */
void mca_coll_hieragg_register_params(mca_base_component_t* c, mca_coll_hieragg_component_t* m);
/* 1 when the user set the cost variable INDEX (any source but the default) to VALUE >= 0. */
int mca_coll_hieragg_cost_set_explicitly(int index, double value);
/* Bits HIERAGG_COST_SET_*: which of the four cost variables INDEX were set explicitly. */
int mca_coll_hieragg_cost_set_bits(const int index[4], const hieragg_link_cost* lc);
/* The switch coll_hieragg_<NAME> as 0 or 1 (another value warns once and becomes 1). */
int mca_coll_hieragg_switch_value(const char* name, int* value);
/* MPI_T performance variables bound to communicators (coll_hieragg_pvars.c). */
void mca_coll_hieragg_register_pvars(mca_base_component_t* c);

/* The MPI error code of a core status (HIERAGG_ERR_*; 0 is success). Inline: every
 * blocking entry returns through it. */
static inline int mca_coll_hieragg_map_status(int status) {
    switch (status) {
    case 0: return OMPI_SUCCESS;
    case HIERAGG_ERR_NO_MEM: return MPI_ERR_NO_MEM; /* an MPI error class the caller can test */
    case HIERAGG_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case HIERAGG_ERR_INTERNAL: return MPI_ERR_INTERN;
    default: return status;
    }
}
/* A nonblocking or persistent collective's request (coll_hieragg_request.c): for A (copied
 * into it) on COMM, owning NEIGHBORS (a neighborhood collective's lists, or NULL), started
 * (nonblocking) or prepared for MPI_Start (PERSISTENT). On an error nothing runs,
 * NEIGHBORS and the request, if one was made, are freed. */
int mca_coll_hieragg_request_start(const hieragg_coll_args* a, struct ompi_communicator_t* comm,
                                   mca_coll_hieragg_module_t* module, int* neighbors,
                                   ompi_request_t** request, bool persistent);
/* Sets every collective entry of the module's function table (coll_hieragg_entries.c). */
void mca_coll_hieragg_fill_functions(mca_coll_base_module_t* m);
/* 1 when the structures the shim uses have the sizes libmpi was built with;
 * else 0 and a description of the first mismatch in MISMATCH. */
int mca_coll_hieragg_layout_check(char* mismatch, size_t len);
/* Callbacks handed to the core. */
void mca_coll_hieragg_transport(hieragg_transport* t);
#if HIERAGG_ULFM
/* MPIX_Comm_agree/iagree when coll/ftagree is not selected (coll_hieragg_agreement.c). */
void mca_coll_hieragg_agreement_init(void);
void mca_coll_hieragg_agreement_fini(void);
void mca_coll_hieragg_agreement_attach(mca_coll_hieragg_module_t* m, struct ompi_communicator_t* comm);
void mca_coll_hieragg_agreement_detach(mca_coll_hieragg_module_t* m);
/* A communicator touched by a process failure (coll_hieragg_failed_comm.c): at module
 * enable, mark its collectives failed when a member is already dead; at MPI_Comm_free,
 * keep it (and its context id) when its collectives failed. */
void mca_coll_hieragg_failed_comm_created(struct ompi_communicator_t* comm);
void mca_coll_hieragg_failed_comm_freeing(struct ompi_communicator_t* comm);
#endif

END_C_DECLS

#endif
