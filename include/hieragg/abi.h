/*
 * The C ABI between the Open MPI shim (C, the only code that sees Open MPI
 * internals) and the C++ core. Everything Open MPI-specific crosses this line
 * as an opaque pointer plus a callback in hieragg_transport.
 */
#ifndef HIERAGG_ABI_H
#define HIERAGG_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hieragg_coll_kind {
    HIERAGG_ALLGATHER = 0,
    HIERAGG_ALLGATHERV,
    HIERAGG_ALLREDUCE,
    HIERAGG_ALLTOALL,
    HIERAGG_ALLTOALLV,
    HIERAGG_ALLTOALLW,
    HIERAGG_BARRIER,
    HIERAGG_BCAST,
    HIERAGG_EXSCAN,
    HIERAGG_GATHER,
    HIERAGG_GATHERV,
    HIERAGG_REDUCE,
    HIERAGG_REDUCE_SCATTER,
    HIERAGG_REDUCE_SCATTER_BLOCK,
    HIERAGG_SCAN,
    HIERAGG_SCATTER,
    HIERAGG_SCATTERV,
    HIERAGG_NEIGHBOR_ALLGATHER,
    HIERAGG_NEIGHBOR_ALLGATHERV,
    HIERAGG_NEIGHBOR_ALLTOALL,
    HIERAGG_NEIGHBOR_ALLTOALLV,
    HIERAGG_NEIGHBOR_ALLTOALLW,
    HIERAGG_COLL_KIND_COUNT
} hieragg_coll_kind;

/* Layout of one datatype, in bytes (size = packed bytes of one element). */
typedef struct hieragg_dtype_info {
    size_t size;
    ptrdiff_t lb, extent;
    ptrdiff_t true_lb, true_extent;
    /* An MPI predefined type: never freed, so a handle seen predefined once keeps its layout
     * (a derived type's address may be reused by another layout after MPI_Type_free). */
    int predefined;
} hieragg_dtype_info;

/* Core error codes (negative); positive codes are the transport's (MPI) own. */
#define HIERAGG_ERR_NO_MEM (-1001)
#define HIERAGG_ERR_INTERNAL (-1002)
#define HIERAGG_ERR_UNSUPPORTED (-1003)

/* Topology kinds of neighborhood collectives. */
#define HIERAGG_TOPO_UNKNOWN 0
#define HIERAGG_TOPO_CART 1
#define HIERAGG_TOPO_GRAPH 2
#define HIERAGG_TOPO_DIST_GRAPH 3

/* Element kinds and operations an offload backend may reduce (SPEC 3.3; docs/offload.md).
 * The shim maps a datatype whose type signature is one basic type, and a predefined
 * operation, to these; anything else is HIERAGG_ELEM_NONE / HIERAGG_OPK_NONE (never offloaded). */
enum {
    HIERAGG_ELEM_NONE = 0, HIERAGG_ELEM_INT8, HIERAGG_ELEM_UINT8, HIERAGG_ELEM_INT16, HIERAGG_ELEM_UINT16,
    HIERAGG_ELEM_INT32, HIERAGG_ELEM_UINT32, HIERAGG_ELEM_INT64, HIERAGG_ELEM_UINT64, HIERAGG_ELEM_FLOAT,
    HIERAGG_ELEM_DOUBLE, HIERAGG_ELEM_COUNT
};
enum {
    HIERAGG_OPK_NONE = 0, HIERAGG_OPK_MIN, HIERAGG_OPK_MAX, HIERAGG_OPK_SUM, HIERAGG_OPK_PROD, HIERAGG_OPK_LOR,
    HIERAGG_OPK_LAND, HIERAGG_OPK_BOR, HIERAGG_OPK_BAND, HIERAGG_OPK_LXOR, HIERAGG_OPK_BXOR, HIERAGG_OPK_COUNT
};

/* Offload (coll_hieragg_offload). */
#define HIERAGG_OFFLOAD_AUTO 0 /* open it where the cost model says it can pay */
#define HIERAGG_OFFLOAD_OFI 1  /* open it wherever the provider allows */
#define HIERAGG_OFFLOAD_OFF 2  /* never */

/* Special rank values, as Open MPI defines them (checked by the shim). */
#define HIERAGG_PROC_NULL (-2)
#define HIERAGG_ROOT (-4)

/* What the shim recognised about a reduction's op and datatype (strong reproducibility). */
#define HIERAGG_FLOAT_SUM_NONE 0
#define HIERAGG_FLOAT_SUM_DOUBLE 1 /* MPI_SUM on MPI_DOUBLE */
#define HIERAGG_FLOAT_SUM_FLOAT 2  /* MPI_SUM on MPI_FLOAT */

/* coll_hieragg_reproducible */
#define HIERAGG_REPRODUCIBLE_NONE 0
#define HIERAGG_REPRODUCIBLE_ORDER 1
#define HIERAGG_REPRODUCIBLE_STRONG 2
/* Bytes of one reproducible-sum accumulator (the shim's accumulator_type). */
#define HIERAGG_ACCUMULATOR_BYTES 32

/* One collective call. Unused fields are zero/NULL. */
typedef struct hieragg_coll_args {
    hieragg_coll_kind kind;
    const void* sbuf;
    void* rbuf;
    int in_place;              /* sbuf was MPI_IN_PLACE */
    size_t scount, rcount;
    const int *scounts, *sdispls; /* element counts / displacements (in extents) */
    const int *rcounts, *rdispls;
    const ptrdiff_t *sdispls_bytes, *rdispls_bytes; /* neighbor_alltoallw (bytes) */
    void *stype, *rtype;
    void* const* stypes;       /* alltoallw */
    void* const* rtypes;
    void* op;
    int op_commutative;
    int float_sum;             /* HIERAGG_FLOAT_SUM_*: op is MPI_SUM on MPI_DOUBLE / MPI_FLOAT */
    int root;                  /* intercomm: HIERAGG_ROOT, HIERAGG_PROC_NULL or remote rank */
    /* Neighborhood collectives: neighbor lists in the standard's order, and the
     * topology kind (it decides how repeated peers pair up). */
    int topology;              /* HIERAGG_TOPO_* */
    int indegree, outdegree;
    const int *sources, *destinations;
} hieragg_coll_args;

/* Open MPI's own types, as the PML's entry points and a request's release take them
 * (hieragg_transport::pml_isend below): incomplete here, so that the core, which never looks inside
 * them, calls those functions through their exact types. The send mode is Open MPI's enum
 * mca_pml_base_send_mode_t, whose values are all non-negative: a C compiler gives it the
 * type unsigned int (the shim asserts that the types are compatible). */
struct ompi_datatype_t;
struct ompi_communicator_t;
struct ompi_request_t;
typedef unsigned hieragg_pml_send_mode;
typedef int (*hieragg_pml_isend_fn)(const void* buf, size_t count, struct ompi_datatype_t* dtype, int peer,
                                    int tag, hieragg_pml_send_mode mode, struct ompi_communicator_t* comm,
                                    struct ompi_request_t** req);
typedef int (*hieragg_pml_irecv_fn)(void* buf, size_t count, struct ompi_datatype_t* dtype, int peer, int tag,
                                    struct ompi_communicator_t* comm, struct ompi_request_t** req);
typedef int (*hieragg_request_free_fn)(struct ompi_request_t** req);

/* Callbacks the shim provides. `comm` is the shim's communicator handle; `local`
 * selects the local group's communicator of an intercommunicator. */
typedef struct hieragg_transport {
    int (*isend)(void* comm, int local, const void* buf, size_t count, void* dtype, int peer,
                 int tag, void** req);
    int (*irecv)(void* comm, int local, void* buf, size_t count, void* dtype, int peer, int tag,
                 void** req);
    /* Sets *done; a finished request is released by test. Returns an error code. */
    int (*test)(void* req, int* done);
    /* Cancel (if possible) and release a request that will not be tested again. */
    void (*abandon)(void* req);
    /* dst = src op dst, count elements of dtype. */
    int (*reduce)(void* op, const void* src, void* dst, size_t count, void* dtype);
    /* Copy scount elements of stype into rcount elements of rtype (same type signature). */
    int (*copy)(const void* src, size_t scount, void* stype, void* dst, size_t rcount, void* rtype);
    void (*dtype_info)(void* dtype, hieragg_dtype_info* out);
    void* packed_type; /* a byte type: data in it is the packed form of any type */
    void* accumulator_type; /* HIERAGG_ACCUMULATOR_BYTES contiguous bytes (strong reproducibility) */
    /* Drive the progress engine once (used only where the core must wait). */
    void (*progress)(void);
    /* Output: level 0 = warning (always shown), >0 = verbose level. */
    void (*output)(int level, const char* msg);
    /* Offload: the HIERAGG_ELEM_* of dtype's signature and the HIERAGG_OPK_* of op (op may
     * be NULL). NULL callback: nothing is offloadable. */
    void (*numeric_kind)(void* dtype, void* op, int* elem, int* op_kind);
    /* A request of a call that failed: cancel it; returns 1 when it is released, 0 when it
     * may still move data (after a process failure under ULFM: a send to a live peer, a
     * receive already matched) and must be tested until it ends, so that no buffer of the
     * call is touched once the call has completed. NULL: abandon. */
    int (*cancel_failed)(void* req);
    /* A request from isend/irecv has certainly not ended while the pointer-sized word at
     * byte `request_done_offset` of it differs from `request_done_value` (Open MPI's
     * req_complete and REQUEST_COMPLETED): a waiter reads it instead of calling test() on
     * every pass of its wait, and calls test() once it matches. 0: no such word; test()
     * every time (under ULFM a failed request ends only inside a test). */
    size_t request_done_offset;
    const void* request_done_value;
    /* isend / irecv that release a request which ended inside the call (an eager send, a
     * receive whose message had arrived): *req is then NULL and the return code is the
     * message's status, as test() right after the post would give. Otherwise as isend /
     * irecv. NULL: not provided (the core posts and tests). */
    int (*isend_released)(void* comm, int local, const void* buf, size_t count, void* dtype, int peer,
                          int tag, void** req);
    int (*irecv_released)(void* comm, int local, void* buf, size_t count, void* dtype, int peer, int tag,
                          void** req);
    /* The PML's own entry points (Open MPI's mca_pml.pml_isend and pml_irecv, taken once the
     * PML is selected; pml_send_standard is MCA_PML_BASE_SEND_STANDARD), so that the core posts a
     * message of a communicator (not its local group) without a frame of the shim per message,
     * and the layout it then needs to do what isend_released, irecv_released and test do: a
     * request has ended when its done word (request_done_offset) holds request_done_value, its
     * status's error is the int at request_error_offset, and the function at
     * request_free_offset (a hieragg_request_free_fn, Open MPI's req_free) releases it. The types
     * are Open MPI's own (hieragg_pml_isend_fn): the shim assigns mca_pml's entries without a
     * cast, so a compiler checks them against its headers. NULL when the done word cannot be
     * trusted (ULFM: a failed request ends only inside a test): the core posts through
     * isend_released / irecv_released and tests through test. */
    hieragg_pml_isend_fn pml_isend;
    hieragg_pml_irecv_fn pml_irecv;
    hieragg_pml_send_mode pml_send_standard;
    size_t request_error_offset;
    size_t request_free_offset;
    /* The request the PML returns for a send that ended inside its post (Open MPI's
     * &ompi_request_empty, what ob1's isend gives when its inline send succeeds): ended,
     * status MPI_SUCCESS, and its req_free only writes MPI_REQUEST_NULL into the handle, so a
     * post that returns it is done and is never released (nothing to test, nothing to free).
     * NULL: none (every ended request is released). */
    const struct ompi_request_t* request_empty;
} hieragg_transport;

/* Cost of one kind of link for the selection's model (coll_hieragg_cost_<link>_<param>).
 * Link classes: 0 inside a NUMA domain, 1 inside a node, 2 between nodes, 3 between
 * switches. A negative field, or a class whose fields are all zero, means the built-in
 * default (docs/selection.md). */
#define HIERAGG_LINK_CLASS_COUNT 4
typedef struct hieragg_link_cost {
    double alpha_us;          /* start-up of one message [us] */
    double beta_ns_per_byte;  /* transfer [ns/byte] */
    double theta_us;          /* processing of one message at the receiver [us] */
    double gamma_ns_per_byte; /* reduction [ns/byte] */
} hieragg_link_cost;

/* Component configuration (from MCA parameters). */
typedef struct hieragg_config {
    const char* split;              /* coll_hieragg_split */
    int verbose;                    /* coll_hieragg_verbose */
    size_t segment_size;            /* bytes per pipeline segment / pulse */
    int algorithm[HIERAGG_COLL_KIND_COUNT]; /* per-collective override, 0 = auto */
    int hierarchy;                  /* 0 = never decompose, 1 = decompose when useful */
    int reproducible;               /* HIERAGG_REPRODUCIBLE_*; 0 (none) behaves as order */
    hieragg_link_cost link_cost[HIERAGG_LINK_CLASS_COUNT]; /* see hieragg_link_cost */
    int offload;                    /* HIERAGG_OFFLOAD_* (coll_hieragg_offload) */
    const char* ofi_provider;       /* coll_hieragg_ofi_provider; NULL or "" = first that fits */
    hieragg_link_cost ofi_cost;     /* coll_hieragg_cost_ofi_*: one fabric collective round */
    double ofi_join_timeout;        /* coll_hieragg_ofi_join_timeout [s]: the leaders' join wait */
    double ofi_op_timeout;          /* coll_hieragg_ofi_op_timeout [s]: one offloaded operation; <= 0 none */
    const char* ofi_inject_error;   /* coll_hieragg_ofi_inject_error (testing): "<op>[:<world rank>]" */
    const char* rules_file;         /* coll_hieragg_rules_file: fitted selection rules (NULL/"" = none) */
    size_t max_temp_bytes;          /* temporaries one call may allocate per rank, 0 = no limit */
    int switch_entries;             /* coll_hieragg_switch_entries: type II entries per switch, 0 = none */
    int switch_degree;              /* coll_hieragg_switch_degree: children per switch of a type II tree */
    int autocalibrate;              /* coll_hieragg_cost_autocalibrate: measure the network link at setup */
    /* Which coll_hieragg_cost_<link>_* the user set (MCA source not the default, value >= 0):
     * bits HIERAGG_COST_SET_ALPHA/BETA/THETA/GAMMA per link class. Measurements never replace them. */
    int link_cost_set[HIERAGG_LINK_CLASS_COUNT];
    int ofi_cost_set;               /* the same bits for coll_hieragg_cost_ofi_* */
    int ofi_manual_progress;        /* coll_hieragg_ofi_manual_progress: triggered chains progress in
                                       counter reads, not on the provider's own thread */
    int node_ranks;                 /* processes of this job on this node (0 = unknown) */
    int node_cores;                 /* cores online on this node (0 = unknown); more ranks than
                                       cores raise the node link's alpha (OversubscribedNode.hpp) */
    /* coll_hieragg_cost_network_exchange [us]: one round in which every leader sends and receives
     * across the network at once; used only when network_exchange_set (the user set it, >= 0),
     * else measured at setup or alpha + theta (docs/selection.md). */
    double network_exchange_us;
    int network_exchange_set;
    /* The selected PML's MPI_TAG_UB (mca_pml.pml_max_tag; 0 = unknown, taken as 2^31 - 1):
     * hieragg's tags stay within [-(pml_max_tag + 1), tag_top] (src/runtime/TagLayout.hpp). */
    long long pml_max_tag;
    /* The highest (least negative) tag hieragg may use: just below the tags Open MPI
     * reserves for itself (MCA_COLL_BASE_TAG_NONBLOCKING_BASE - 1: -28 on 4.1, -34 on 5.0).
     * 0: -28. */
    int tag_top;
    /* coll_hieragg_tag_window (testing, or a site that wants fewer tags): the call-number
     * window is at most this (rounded down to a power of two); 0 = what pml_max_tag allows. */
    unsigned tag_window;
    /* The network PML/BTL's eager limit [B] (btl_tcp_eager_limit under ob1; 0 = unknown): the
     * setup calibration times sizes on both sides of it (docs/selection.md), and the name of
     * the MCA variable it came from (a static string, for the verbose line; NULL = none). */
    size_t network_eager_limit;
    const char* network_eager_source;
    /* The same for the node link: the shared-memory BTL's eager limit [B]
     * (btl_vader_eager_limit on Open MPI 4, btl_sm_eager_limit on 5, under ob1; 0 = unknown). */
    size_t node_eager_limit;
    const char* node_eager_source;
    /* The job runs MPI_THREAD_MULTIPLE (Open MPI's ompi_mpi_thread_multiple, or init_query's
     * enable_mpi_threads): threads may start collectives at once. 0: MPI calls follow one
     * another, so a blocking repeat of the last call takes no lock (docs/architecture.md). */
    int thread_multiple;
} hieragg_config;
#define HIERAGG_COST_SET_ALPHA 1
#define HIERAGG_COST_SET_BETA 2
#define HIERAGG_COST_SET_THETA 4
#define HIERAGG_COST_SET_GAMMA 8

typedef struct hieragg_comm hieragg_comm;
typedef struct hieragg_task hieragg_task;
typedef void (*hieragg_complete_fn)(void* ctx, int status);

/* The call-number window hieragg's tags get under a PML whose MPI_TAG_UB is max_tag, from
 * tag_top down (hieragg_config::tag_top; docs/architecture.md, "Messages and tags"); 0 when
 * they do not fit, with the reason in why (NUL-terminated, at most why_size bytes). */
unsigned hieragg_tag_window(long long max_tag, int tag_top, char* why, size_t why_size);

/* Process-wide setup. Returns 0 on success. */
int hieragg_core_init(const hieragg_transport* transport, const hieragg_config* config);
void hieragg_core_fini(void);

/* Per-communicator state; the decomposition is built on first use, without blocking. */
hieragg_comm* hieragg_comm_create(void* comm, int rank, int size, int is_inter, int remote_size,
                                  int world_rank);
void hieragg_comm_destroy(hieragg_comm* comm);
/* MPI_Comm_free was called on the communicator whose shim handle is `comm` (an attribute
 * delete callback; the communicator lives on while operations are pending): stop what
 * listens in the background. A posted receive retains the communicator in Open MPI, so
 * one left posted would keep it (and hieragg's state) from ever being destroyed. */
void hieragg_comm_freeing(void* comm);

/* Start a collective. On success the completion callback runs exactly once,
 * possibly before hieragg_start returns. Returns 0 or an error code. Never waits for
 * another rank: the first call on a communicator starts the identity exchange and
 * runs once it has finished (inside hieragg_progress). The arrays `args` points to
 * (counts, displacements, datatype arrays, neighbor lists) must stay valid until the
 * call completes: a blocking call's do. */
int hieragg_start(hieragg_comm* comm, const hieragg_coll_args* args, hieragg_complete_fn done,
                  void* ctx);
/* The same for a nonblocking call: its caller may free or rewrite those arrays as
 * soon as this returns (as with Open MPI's own components); the core copies what it
 * reads later. The buffers and the datatype objects must live until completion. */
int hieragg_start_nonblocking(hieragg_comm* comm, const hieragg_coll_args* args, hieragg_complete_fn done,
                              void* ctx);

/* A blocking collective: starts it and waits for it (driving the transport's progress).
 * A repeat of the last call's signature runs its compiled schedule inside this wait
 * (docs/architecture.md, "The compiled fast path"). Returns 0 or an error code. */
int hieragg_run(hieragg_comm* comm, const hieragg_coll_args* args);
/* hieragg_run of a barrier (the arguments of HIERAGG_BARRIER alone, every other field zero):
 * its arguments never change, so a repeat is known without comparing them. */
int hieragg_run_barrier(hieragg_comm* comm);

/* Persistent collectives (MPI-4) are matched in the order of their init calls: the
 * init takes an id (local, no communication) and every start of the request runs in
 * that id's own tag space. The init copies the arrays `args` points to and every start
 * runs that copy (`args` of a start is used only for an id the init did not take), so
 * the application may free its arrays once the init returned. Free releases what the
 * init kept. */
int hieragg_persistent_init(hieragg_comm* comm, const hieragg_coll_args* args, uint32_t* id);
void hieragg_persistent_free(hieragg_comm* comm, uint32_t id);
int hieragg_start_persistent(hieragg_comm* comm, const hieragg_coll_args* args, uint32_t id,
                             hieragg_complete_fn done, void* ctx);

/* Progress every active collective; returns how many completed. Safe to re-enter. */
int hieragg_progress(void);

/* Observability (MPI_T performance variables, docs/tuning.md). Per communicator, what this
 * process sent: [0] inside its subspace (the whole communicator when it is not decomposed),
 * [l] across leader level l (to a peer in another level-(l-1) group; deeper levels add up
 * in the last entry); and the most temporary memory its collectives held at once. */
#define HIERAGG_COUNTER_LEVELS 4
typedef struct hieragg_comm_counters {
    uint64_t bytes[HIERAGG_COUNTER_LEVELS];
    uint64_t messages[HIERAGG_COUNTER_LEVELS];
    uint64_t temp_bytes_high_water;
    uint64_t subspaces; /* level-0 groups of the decomposition (1: not decomposed; 0: not known yet) */
    uint64_t offloaded_operations; /* fabric collectives this process started (docs/offload.md) */
    uint64_t offloaded_bytes;      /* their payload: not in bytes[] / messages[], which count the PML's */
} hieragg_comm_counters;
/* Counters of the communicator whose shim handle is `comm`; zeros if hieragg does not serve it. */
/* Link class `link` (0 numa, 1 node, 2 network, 3 switch) as the cost model uses it on communicator
 * `comm` (measured at setup, set by MCA, or the defaults; MPI_T pvars coll_hieragg_network_cost,
 * coll_hieragg_network_exchange_round, coll_hieragg_node_cost): [0] alpha [us], [1] beta [ns/B],
 * [2] the exchange round [us], [3] theta [us], [4] each further message of a burst [us], [5] 1 when
 * this process measured the link (or took a measurement carried from an earlier communicator)
 * and the communicator applied it, else 0. Unknown communicator: the process's MCA values. */
#define HIERAGG_LINK_COST_VALUES 6
void hieragg_read_link_cost(void* comm, int link, double out[HIERAGG_LINK_COST_VALUES]);
/* What else the setup calibration measured on communicator `comm` (MPI_T pvar
 * coll_hieragg_network_calibration): [0] beta below the eager limit [ns/B], [1] the eager
 * limit [B] past which [2] the rendezvous [us] is added once per message (0, 0: none),
 * [3] the cost of each further message of a burst [us], [4] the chooser's band of close
 * predictions (CostParams::closeFraction; 0: nothing measured, the cheapest wins), [5] 1 when
 * the network was measured (here or carried from an earlier communicator), 0 when not (off,
 * rejected, a single host). */
#define HIERAGG_NETWORK_CALIBRATION_VALUES 6
void hieragg_read_network_calibration(void* comm, double out[HIERAGG_NETWORK_CALIBRATION_VALUES]);
void hieragg_read_counters(void* comm, hieragg_comm_counters* out);
/* Calls of `kind` on `comm` served by each of its algorithms: out[i] for enum value i + 1 of
 * coll_hieragg_<kind>_algorithm (a call whose stages ran different algorithms counts for
 * each). Writes min(max, count) values; returns the count (hieragg_algorithm_count). */
int hieragg_read_algorithm_calls(void* comm, hieragg_coll_kind kind, uint64_t* out, int max);
int hieragg_algorithm_count(hieragg_coll_kind kind);

/* Names for parameters and messages. */
const char* hieragg_coll_name(hieragg_coll_kind kind);
/* Comma-separated algorithm names accepted by the override of `kind` (index = value),
 * generated from the algorithm registry (coll_hier/src/algorithms/AlgorithmList.cpp). */
const char* hieragg_algorithm_names(hieragg_coll_kind kind);
/* Built-in default of the cost model's parameters for link class `link` (0..3). */
hieragg_link_cost hieragg_default_link_cost(int link);
/* Built-in default of coll_hieragg_cost_ofi_* (one offloaded round among the leaders). */
hieragg_link_cost hieragg_default_offload_cost(void);
/* Name of link class `link`: "numa", "node", "network", "switch". */
const char* hieragg_link_class_name(int link);

#ifdef __cplusplus
}
#endif

#endif /* HIERAGG_ABI_H */
