// Scatterv. Flat linear: the root sends every block straight from its displacement
// into the owner's recvbuf. Hierarchical, in two stages (TwoStage.hpp): sendcounts are
// known only at the root, so the members of every group but the root's first tell
// their leader their block's size (each knows its own recvcount); then the root packs
// each group's blocks (up to the limit) into one message to its leader, which hands
// every member its part. Blocks above the limit, and the root's own group, come
// straight from the root.
#include "RootedVector.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg::recipes {

Schedule scatterv(const CollCall& c) {
    if (c.varStage == 1) return sizeStage(c);
    if (c.varStage == 2) return scattervThroughLeaders(c);
    return rootedVectorFlat(c, RootedVector::scatterv(c));
}

Schedule scattervThroughLeaders(const CollCall& c) { return rootedVectorThroughLeaders(c, RootedVector::scatterv(c)); }

}  // namespace hieragg::recipes
