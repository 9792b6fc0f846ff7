#include "hieragg/hier/HierarchyAdapter.hpp"

namespace hieragg::hier {

aggtree::ProcessHierarchy toProcessHierarchy(const Hierarchy& h) {
    aggtree::ProcessHierarchy p;
    p.process_count = h.commSize();
    p.levels.resize(h.levels());
    for (int l = 0; l < h.levels(); ++l) {
        p.levels[l].resize(h.commSize());
        for (int r = 0; r < h.commSize(); ++r) p.levels[l][r] = h.groupOf(l, r);
    }
    return p;
}

std::optional<std::vector<int>> equalBlockCounts(const Hierarchy& h) {
    const int n = h.commSize();
    std::vector<int> counts;
    int below = 1;  // ranks in one group of the level below (1: a rank)
    for (int l = 0; l < h.levels(); ++l) {
        const int groups = h.groupCount(l);
        if (groups < 1 || n % groups != 0) return std::nullopt;
        const int size = n / groups;
        // Members ascending: size of them spanning size ranks are consecutive; equal
        // consecutive groups that cover [0, n) are the blocks [g size, (g + 1) size).
        for (int g = 0; g < groups; ++g) {
            const std::vector<int>& m = h.groupMembers(l, g);
            if (static_cast<int>(m.size()) != size || m.back() - m.front() + 1 != size) return std::nullopt;
        }
        if (size % below != 0) return std::nullopt;  // groups nest, so only a broken hierarchy
        counts.push_back(size / below);
        below = size;
    }
    counts.push_back(n / below);
    return counts;
}

}  // namespace hieragg::hier
