// `linear`: every rank sends to the root (gatherv), the root to every rank (scatterv), one
// message per neighbor (the neighborhood collectives). Their times are not modelled.
#include "algorithms/Row.hpp"

namespace hieragg::hier::units {

constexpr Pricing P = Pricing::Stage;
constexpr unsigned T = 0;
constexpr const char* kNeighbors = "one message per neighbor";

extern const AlgorithmInfo gatherv_linear = {HIERAGG_GATHERV, "linear", kServesFlat, 0, 0, T, K::Knomial,
                                             "every rank sends to the root", P, unpriced};
extern const AlgorithmInfo scatterv_linear = {HIERAGG_SCATTERV, "linear", kServesFlat, 0, 0, T, K::Knomial,
                                              "the root sends to every rank", P, unpriced};
extern const AlgorithmInfo neighbor_allgather_linear = {HIERAGG_NEIGHBOR_ALLGATHER, "linear", kServesFlat, 0, 0, T,
                                                        K::Knomial, kNeighbors, P, unpriced};
extern const AlgorithmInfo neighbor_allgatherv_linear = {HIERAGG_NEIGHBOR_ALLGATHERV, "linear", kServesFlat, 0, 0, T,
                                                         K::Knomial, kNeighbors, P, unpriced};
extern const AlgorithmInfo neighbor_alltoall_linear = {HIERAGG_NEIGHBOR_ALLTOALL, "linear", kServesFlat, 0, 0, T,
                                                       K::Knomial, kNeighbors, P, unpriced};
extern const AlgorithmInfo neighbor_alltoallv_linear = {HIERAGG_NEIGHBOR_ALLTOALLV, "linear", kServesFlat, 0, 0, T,
                                                        K::Knomial, kNeighbors, P, unpriced};
extern const AlgorithmInfo neighbor_alltoallw_linear = {HIERAGG_NEIGHBOR_ALLTOALLW, "linear", kServesFlat, 0, 0, T,
                                                        K::Knomial, kNeighbors, P, unpriced};

}  // namespace hieragg::hier::units
