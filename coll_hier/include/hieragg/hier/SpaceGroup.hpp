// A space of the decomposition as a Group a flat algorithm can run over, with
// the index of the member that roots it (the collective's root, or the leader).
#pragma once
#include "hieragg/Group.hpp"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::hier {

struct SpaceGroup {
    Group group;     // empty ranks: this rank is not in a space at that level
    int rootIdx = 0;
};

SpaceGroup spaceGroup(const Hierarchy& h, int level, int rank, int root);

}  // namespace hieragg::hier
