// Nested grouping of processes (node inside switch inside pod ...), the input of the
// hierarchical tree builders.
//
// levels[j][rank] is the id of the group that `rank` belongs to at level j, innermost
// level first (e.g. levels[0] = node, levels[1] = switch). Ids are arbitrary ints.
// Levels must nest: two ranks in one group at level j are in one group at level j+1.
// An outermost level holding every process is implicit (do not list it).
#pragma once
#include <vector>

namespace hieragg::aggtree {

struct ProcessHierarchy {
    int process_count = 0;
    std::vector<std::vector<int>> levels;
};

// Levels from block sizes, innermost first: {2, 16} gives node = r/2, switch = r/16.
ProcessHierarchy hierarchyFromBlockSizes(int P, const std::vector<int>& blockSizes);

// Dense form used by the builders. Level `levelCount()` is the implicit outermost group.
struct GroupNesting {
    int process_count = 0;
    std::vector<std::vector<int>> group_of;      // [level][rank] -> dense group id at that level
    std::vector<std::vector<int>> parent_group;  // [level][group] -> dense group id at level + 1
    std::vector<int> group_count;                // [level], including the implicit top (1 group)

    int levelCount() const { return static_cast<int>(group_of.size()); }  // listed levels only
};

// Validates sizes and nesting; throws std::invalid_argument naming the offending level and rank.
GroupNesting normaliseHierarchy(const ProcessHierarchy& hierarchy);

}  // namespace hieragg::aggtree
