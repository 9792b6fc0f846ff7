// What one stage's cost model needs to know about the call (the tree-shaped collectives:
// bcast, reduce, allreduce, barrier, gather, scatter and the reduce_scatters' trees), and
// the per-message work every tree model charges for it.
#pragma once
#include <cstddef>
#include <limits>

#include "hieragg/CollCall.hpp"
#include "hieragg/aggtree/HopPrice.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/CostParams.hpp"

namespace hieragg::hier::model {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kMaxRadix = 64;  // radices scanned for k-ary and the hierarchical tree

using Shape = ModelShape;  // the collective's row says it (CollectiveFacts.hpp)

struct Load {
    Shape shape;
    double bytes = 0;        // message (bcast), vector (reductions), all blocks (gather)
    double pulseBytes = 0;   // reductions: bytes per pulse (coll_hieragg_segment_size)
    double pulses = 1;
    size_t elemBytes = 1;
    double segmentCap = 0;   // coll_hieragg_segment_size: no pipeline segment is larger
    // Bcast or reduce on one node with more ranks than cores (docs/selection.md): the
    // cores, else 0.
    int sharedCores = 0;
};

// The load of call c: the model's bytes (all blocks for gather and scatter), the pulses of
// coll_hieragg_segment_size and, on one node with more ranks than cores, the cores where the
// collective's facts say its trees are bound by them (TreeTerms::SharedCores).
Load stageLoadOf(const CollCall& c, const CostParams& p);

inline bool reduces(const Load& ld) { return ld.shape == Shape::Reduce || ld.shape == Shape::Allreduce; }

// The bytes of one message of a tree: a pulse for reductions, the whole message otherwise.
inline double unitBytes(const Load& ld) { return reduces(ld) ? ld.pulseBytes : ld.bytes; }

// The link time one message of `bytes` bytes occupies: start-up, bytes, combine.
inline double occupancyUs(const LinkCost& l, const Load& ld, double bytes) {
    return l.theta_us + bytes * l.beta_us_per_byte + (reduces(ld) ? bytes * l.gamma_us_per_byte : 0.0);
}

// Per-message work at the receiver for `bytes` bytes, with the rendezvous past the eager limit
// (one message alone; a tree's siblings share their handshakes: hopOf).
inline double packetUs(const LinkCost& l, const Load& ld, double bytes) {
    return occupancyUs(l, ld, bytes) + rendezvousUs(l, bytes);
}

// A tree hop on link l carrying `bytes` bytes per message (aggtree/HopPrice.hpp): the
// rendezvous once per hop, the occupancy once per child.
inline aggtree::HopPrice hopOf(const LinkCost& l, const Load& ld, double bytes) {
    return {l.alpha_us, rendezvousUs(l, bytes), occupancyUs(l, ld, bytes)};
}

}  // namespace hieragg::hier::model
