// Exclusive scan: rank i > 0 gets a_0 op ... op a_{i-1}; rank 0's rbuf is
// undefined in MPI and left untouched (ScanPulses.hpp).
#include "ScanPulses.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

Schedule exscan(const CollCall& c) { return prefixReduction(c, true); }

}  // namespace hieragg::recipes
