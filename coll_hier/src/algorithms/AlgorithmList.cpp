// THE list of algorithm rows: one entry per row, each defined in its unit
// (coll_hier/src/algorithms/<family>/<name>.cpp, named <collective>_<algorithm>). The rows of
// one collective keep their order here: it is the order of the coll_hieragg_<coll>_algorithm
// enum's values (value i + 1 = the collective's row i), so append a new row after the
// existing ones of its collective.
#include <vector>

#include "hieragg/hier/AlgorithmRegistry.hpp"

#define HIERAGG_ALGORITHM_ROWS(X)                                                                              \
    X(bcast_knomial) X(bcast_chain) X(bcast_flat) X(bcast_kary) X(bcast_hier_knomial) X(bcast_ofi)              \
    X(bcast_ofi_triggered_chain) X(bcast_type2) X(bcast_hier_pipeline)                                          \
    X(gather_knomial) X(gather_flat) X(gather_direct)                                                           \
    X(scatter_knomial) X(scatter_flat) X(scatter_direct)                                                        \
    X(allgather_ring) X(allgather_hierarchical) X(allgather_recursive_doubling) X(allgather_bruck)              \
    X(allgather_leader_ring) X(allgather_multileader)                                                           \
    X(allgatherv_ring) X(allgatherv_hierarchical) X(allgatherv_leader_ring) X(allgatherv_multileader)           \
    X(allgatherv_bruck) X(allgatherv_recursive_doubling)                                                        \
    X(gatherv_linear) X(gatherv_hierarchical)                                                                   \
    X(scatterv_linear) X(scatterv_hierarchical)                                                                 \
    X(alltoall_pairwise) X(alltoall_hierarchical)                                                               \
    X(alltoallv_pairwise) X(alltoallv_hierarchical)                                                             \
    X(alltoallw_pairwise) X(alltoallw_hierarchical)                                                             \
    X(neighbor_allgather_linear) X(neighbor_allgatherv_linear) X(neighbor_alltoall_linear)                      \
    X(neighbor_alltoallv_linear) X(neighbor_alltoallw_linear)                                                   \
    X(barrier_dissemination) X(barrier_flat) X(barrier_knomial) X(barrier_hier_knomial) X(barrier_ofi)          \
    X(reduce_knomial) X(reduce_flat) X(reduce_kary) X(reduce_chain) X(reduce_hier_knomial) X(reduce_type2)      \
    X(reduce_hier_pipeline)                                                                                     \
    X(allreduce_knomial) X(allreduce_flat) X(allreduce_kary) X(allreduce_chain) X(allreduce_hier_knomial)       \
    X(allreduce_ofi) X(allreduce_ring) X(allreduce_rabenseifner) X(allreduce_recursive_doubling)               \
    X(allreduce_multileader_ring) X(allreduce_multileader_rabenseifner) X(allreduce_type2)                      \
    X(allreduce_hier_pipeline)                                                                                  \
    X(reduce_scatter_knomial) X(reduce_scatter_flat) X(reduce_scatter_kary) X(reduce_scatter_chain)             \
    X(reduce_scatter_hier_knomial) X(reduce_scatter_ring) X(reduce_scatter_hierarchical)                        \
    X(reduce_scatter_recursive_halving)                                                                         \
    X(reduce_scatter_block_knomial) X(reduce_scatter_block_flat) X(reduce_scatter_block_kary)                   \
    X(reduce_scatter_block_chain) X(reduce_scatter_block_hier_knomial) X(reduce_scatter_block_ring)             \
    X(reduce_scatter_block_hierarchical) X(reduce_scatter_block_recursive_halving)                              \
    X(scan_recursive_doubling) X(exscan_recursive_doubling) X(scan_leader_prefix) X(exscan_leader_prefix)       \
    X(scan_leader_chain) X(exscan_leader_chain) X(scan_linear) X(exscan_linear)

namespace hieragg::hier {

namespace units {
#define HIERAGG_DECLARE_ROW(row) extern const AlgorithmInfo row;
HIERAGG_ALGORITHM_ROWS(HIERAGG_DECLARE_ROW)
#undef HIERAGG_DECLARE_ROW
}  // namespace units

const std::vector<AlgorithmInfo>& allAlgorithms() {
    // The units' rows are constant-initialized, so copying them here is safe at any time.
#define HIERAGG_COPY_ROW(row) units::row,
    static const std::vector<AlgorithmInfo> rows = {HIERAGG_ALGORITHM_ROWS(HIERAGG_COPY_ROW)};
#undef HIERAGG_COPY_ROW
    return rows;
}

}  // namespace hieragg::hier
