#include "hieragg/aggtree/ProcessHierarchy.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace hieragg::aggtree {

ProcessHierarchy hierarchyFromBlockSizes(int P, const std::vector<int>& blockSizes) {
    ProcessHierarchy h;
    h.process_count = P;
    for (int size : blockSizes) {
        if (size < 1) throw std::invalid_argument("hierarchyFromBlockSizes: block size must be >= 1");
        std::vector<int> level(P);
        for (int r = 0; r < P; ++r) level[r] = r / size;
        h.levels.push_back(std::move(level));
    }
    return h;
}

namespace {

// Dense relabelling in first-seen order; a flat table when ids are small (the common
// r/n case), a hash map otherwise.
std::vector<int> denseIds(const std::vector<int>& ids, int& count) {
    std::vector<int> out(ids.size());
    count = 0;
    if (ids.empty()) return out;
    auto [mn, mx] = std::minmax_element(ids.begin(), ids.end());
    const long long range = static_cast<long long>(*mx) - *mn + 1;
    if (range <= 4LL * static_cast<long long>(ids.size()) + 16) {
        std::vector<int> table(static_cast<size_t>(range), -1);
        for (size_t r = 0; r < ids.size(); ++r) {
            int& slot = table[static_cast<size_t>(ids[r] - *mn)];
            if (slot < 0) slot = count++;
            out[r] = slot;
        }
    } else {
        std::unordered_map<int, int> table;
        for (size_t r = 0; r < ids.size(); ++r) {
            auto [it, inserted] = table.emplace(ids[r], count);
            if (inserted) ++count;
            out[r] = it->second;
        }
    }
    return out;
}

}  // namespace

GroupNesting normaliseHierarchy(const ProcessHierarchy& hierarchy) {
    const int P = hierarchy.process_count;
    if (P < 1) throw std::invalid_argument("hierarchy: process count must be >= 1");
    GroupNesting n;
    n.process_count = P;
    for (size_t j = 0; j < hierarchy.levels.size(); ++j) {
        if (static_cast<int>(hierarchy.levels[j].size()) != P)
            throw std::invalid_argument("hierarchy: level " + std::to_string(j) + " has " +
                                        std::to_string(hierarchy.levels[j].size()) + " entries, expected " +
                                        std::to_string(P));
        int count = 0;
        n.group_of.push_back(denseIds(hierarchy.levels[j], count));
        n.group_count.push_back(count);
    }
    n.group_count.push_back(1);  // implicit top
    const int L = n.levelCount();
    n.parent_group.resize(L);
    for (int j = 0; j < L; ++j) {
        n.parent_group[j].assign(n.group_count[j], -1);
        for (int r = 0; r < P; ++r) {
            const int outer = j + 1 < L ? n.group_of[j + 1][r] : 0;
            int& p = n.parent_group[j][n.group_of[j][r]];
            if (p < 0) {
                p = outer;
            } else if (p != outer) {
                throw std::invalid_argument("hierarchy: level " + std::to_string(j) + " does not nest in level " +
                                            std::to_string(j + 1) + " (rank " + std::to_string(r) +
                                            " splits its group)");
            }
        }
    }
    return n;
}

}  // namespace hieragg::aggtree
