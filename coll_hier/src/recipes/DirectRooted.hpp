// Gather and scatter `direct` (registry rows): every rank's block moves once, straight
// between that rank's buffer and the root's, every message posted at once (the root's
// messages to or from other nodes first). For large blocks this is what the link allows:
// the root's node link carries each remote block exactly once ((N - 1)/N of the P blocks
// with N equal nodes) and nothing waits for a whole subtree to arrive at a leader before
// it moves on (the k-nomial rows' store-and-forward); the node-local blocks travel over
// shared memory beside the network ones. Temporary memory: none; schedule: one step per
// rank at the root, one elsewhere, whatever the message size.
#pragma once
#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"

namespace hieragg::recipes {

Schedule directGather(const CollCall& c);
Schedule directScatter(const CollCall& c);

}  // namespace hieragg::recipes
