// Scatter over an in-order tree, the mirror of TreeGather: the root holds every
// member's piece in virtual order as packed bytes; each inner node receives its
// subtree's pieces in one message and forwards the children's.
#pragma once
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"
#include "hieragg/algorithms/Emitted.hpp"
#include "hieragg/algorithms/MemberTree.hpp"

namespace hieragg {

struct TreeScatter {
    const MemberTree& tree;  // over the members of g, rooted at the scatter's root; inOrder
    // memberBytes[i]: packed bytes of member i's piece. On the root, `work` holds all
    // pieces once `after` is done. Elsewhere this rank's piece ends in `mine`, or stays
    // at work[0] if keepInWork (it is scattered further one level down). A leaf that
    // does not keep receives straight into `mine`.
    Emitted emit(ScheduleBuilder& b, const Group& g, const std::vector<size_t>& memberBytes, Block mine,
                 bool keepInWork, BufRef work, StepId after, uint32_t channel) const;
    // Bytes this rank's work buffer needs (0: a leaf that receives into `mine`).
    size_t workBytes(const Group& g, const std::vector<size_t>& memberBytes, bool keepInWork) const;
};

}  // namespace hieragg
