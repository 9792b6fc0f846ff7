// Gatherv. Flat linear: every rank sends straight into the root's recvbuf at its
// displacement. Hierarchical, in two stages (TwoStage.hpp): recvcounts are known only
// at the root, so the members of every group but the root's first tell their leader
// their block's size; then each leader packs its members' blocks (up to the limit)
// into one message to the root, which unpacks them at their displacements. Blocks
// above the limit, and the root's own group, go straight to the root.
#include "RootedVector.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/TwoStage.hpp"

namespace hieragg::recipes {

Schedule gatherv(const CollCall& c) {
    if (c.varStage == 1) return sizeStage(c);
    if (c.varStage == 2) return gathervThroughLeaders(c);
    return rootedVectorFlat(c, RootedVector::gatherv(c));
}

Schedule gathervThroughLeaders(const CollCall& c) { return rootedVectorThroughLeaders(c, RootedVector::gatherv(c)); }

}  // namespace hieragg::recipes
