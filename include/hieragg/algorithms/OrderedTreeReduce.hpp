// One pulse of a tree reduction over a Group, combining in a fixed order (never
// arrival order), so results are bitwise reproducible (SPEC 3.3).
// rankOrder (non-commutative ops): the members left of the root and those right
// of it each form an in-order tree of `shape` over their index range (every node
// combines own op child op child... in ascending order, the product of its index
// range in order); both tops send to the root, which computes left op own op
// right. Otherwise one tree rooted at the root (`tree` if given: e.g. the
// hierarchical minimum-height tree), the same fixed combine order on rotated
// indices. Either way every non-root member sends exactly one message per pulse.
#pragma once
#include <vector>

#include "hieragg/Group.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/MemberTree.hpp"

namespace hieragg {

struct OrderedTreeReduce {
    bool rankOrder = false;        // needs an in-order shape (TreeShape::inOrder)
    TreeShape shape = TreeShape::knomial(2);
    const MemberTree* tree = nullptr;  // whole-group tree overriding shape (not with rankOrder)

    struct Pulse {
        BufRef input;          // this member's contribution (read only)
        StepId inputReady = kNoStep;
        TypeRef type;          // datatype slot and element count of the pulse
        std::vector<BufRef> scratch;  // scratchCount() buffers, each holding the pulse
        Deps scratchFree;      // before writing scratch (reuse across pulses)
        const BufRef* out = nullptr;  // root: where the result must land (nullptr: leave it in place)
        Deps outFree;          // before writing out (in-place inputs that alias it)
        uint32_t channel = 0;
    };
    struct Result {
        StepId ready = kNoStep;  // root: result is at `at`
        BufRef at;               // root: where the result is
        StepId done = kNoStep;   // all of this member's steps finished
    };

    // Scratch buffers one pulse needs on this member.
    int scratchCount(const Group& g, int rootIdx) const;
    Result emit(ScheduleBuilder& b, const Group& g, int rootIdx, const Pulse& p) const;
};

}  // namespace hieragg
