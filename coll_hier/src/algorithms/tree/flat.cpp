// `flat`: one plan over the whole communicator, ignoring the decomposition. It has no price
// of its own: forcing it runs the best flat plan of the collective's Stage rows.
#include "algorithms/Row.hpp"

namespace hieragg::hier::units {

constexpr Pricing P = Pricing::FlatMarker;
constexpr unsigned T = kTraitTree;
constexpr const char* kOneTree = "one tree over the whole communicator, ignoring the decomposition";
constexpr const char* kOneKnomial = "one k-nomial tree over the whole communicator";

extern const AlgorithmInfo bcast_flat = {HIERAGG_BCAST, "flat", kServesFlat, 0, kTree, T, K::Knomial, kOneTree, P};
extern const AlgorithmInfo gather_flat = {HIERAGG_GATHER, "flat", kServesFlat, 0, kTunesRadix, T, K::Knomial,
                                          kOneKnomial, P};
extern const AlgorithmInfo scatter_flat = {HIERAGG_SCATTER, "flat", kServesFlat, 0, kTunesRadix, T, K::Knomial,
                                           kOneKnomial, P};
extern const AlgorithmInfo barrier_flat = {HIERAGG_BARRIER, "flat", kServesFlat, 0, 0, T, K::Knomial,
                                           "one flat barrier over the whole communicator", P};
extern const AlgorithmInfo reduce_flat = {HIERAGG_REDUCE, "flat", kServesFlat, 0, kPulsed, T, K::Knomial, kOneTree, P};
extern const AlgorithmInfo allreduce_flat = {HIERAGG_ALLREDUCE, "flat", kServesFlat, 0, kPulsed, T, K::Knomial,
                                             kOneTree, P};
extern const AlgorithmInfo reduce_scatter_flat = {HIERAGG_REDUCE_SCATTER, "flat", kServesFlat, 0, kPulsed, T,
                                                  K::Knomial, kOneTree, P};
extern const AlgorithmInfo reduce_scatter_block_flat = {HIERAGG_REDUCE_SCATTER_BLOCK, "flat", kServesFlat, 0,
                                                        kPulsed, T, K::Knomial, kOneTree, P};

}  // namespace hieragg::hier::units
