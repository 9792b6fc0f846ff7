// Hierarchy: refinement of per-level keys into nested dense groups, and the
// per-call spaces (subspaces and leader spaces) for a given root.
#include "hieragg/hier/Hierarchy.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace hieragg::hier {

bool Space::contains(int rank) const { return indexOf(rank) >= 0; }

int Space::indexOf(int rank) const {
    auto it = std::lower_bound(members.begin(), members.end(), rank);
    if (it == members.end() || *it != rank) return -1;
    return static_cast<int>(it - members.begin());
}

Hierarchy Hierarchy::flat(int commSize) {
    std::vector<int64_t> self(static_cast<size_t>(std::max(commSize, 0)));
    std::iota(self.begin(), self.end(), int64_t{0});
    return fromKeys(commSize, {self});
}

Hierarchy Hierarchy::fromKeys(int commSize, const std::vector<std::vector<int64_t>>& groupOf) {
    if (commSize < 0) throw std::invalid_argument("Hierarchy::fromKeys: negative commSize");
    if (groupOf.empty()) return flat(commSize);
    const size_t n = static_cast<size_t>(commSize);
    const int L = static_cast<int>(groupOf.size());
    for (int l = 0; l < L; ++l) {
        if (groupOf[l].size() != n)
            throw std::invalid_argument("Hierarchy::fromKeys: level " + std::to_string(l) + " has " +
                                        std::to_string(groupOf[l].size()) + " keys for " +
                                        std::to_string(commSize) + " ranks");
    }

    Hierarchy h;
    h.size_ = commSize;
    h.groupOf_.assign(L, std::vector<int>(n, 0));
    h.groups_.assign(L, {});

    // Outermost first: the group of r at level l is identified by (its dense group at
    // level l+1, its own key at l), which by induction is the tuple of keys l..L-1.
    std::vector<std::tuple<int, int64_t, int>> order(n);  // (outer group, key, rank)
    std::vector<int> provisional(n);
    for (int l = L - 1; l >= 0; --l) {
        for (size_t r = 0; r < n; ++r) {
            const int outer = l + 1 < L ? h.groupOf_[l + 1][r] : 0;
            order[r] = {outer, groupOf[l][r], static_cast<int>(r)};
        }
        std::sort(order.begin(), order.end());
        int next = -1;
        for (size_t i = 0; i < n; ++i) {
            if (i == 0 || std::get<0>(order[i]) != std::get<0>(order[i - 1]) ||
                std::get<1>(order[i]) != std::get<1>(order[i - 1]))
                ++next;
            provisional[std::get<2>(order[i])] = next;
        }
        // Renumber in order of each group's lowest rank so ids do not depend on key values.
        std::vector<int> dense(static_cast<size_t>(next + 1), -1);
        auto& groups = h.groups_[l];
        for (size_t r = 0; r < n; ++r) {
            int& id = dense[provisional[r]];
            if (id < 0) {
                id = static_cast<int>(groups.size());
                groups.emplace_back();
            }
            h.groupOf_[l][r] = id;
            groups[id].push_back(static_cast<int>(r));  // ascending because r ascends
        }
    }

    // children_[l][g]: the level-(l-1) groups inside level-l group g, ascending id (and
    // so ascending lowest rank); children_[L][0]: all outermost groups (leader space).
    h.children_.assign(L + 1, {});
    for (int l = 1; l <= L; ++l) {
        h.children_[l].assign(l < L ? h.groups_[l].size() : 1, {});
        for (int c = 0; c < static_cast<int>(h.groups_[l - 1].size()); ++c) {
            const int parent = l < L ? h.groupOf_[l][h.groups_[l - 1][c].front()] : 0;
            h.children_[l][parent].push_back(c);
        }
    }
    return h;
}

int Hierarchy::leaderOf(int level, int rank, int root) const {
    if (rank < 0 || rank >= size_ || level < 0 || level > levels())
        throw std::out_of_range("Hierarchy::leaderOf: level/rank out of range");
    const bool rooted = root >= 0 && root < size_;
    if (level == levels()) return rooted ? root : 0;  // the whole communicator
    const int g = groupOf_[level][rank];
    if (rooted && groupOf_[level][root] == g) return root;
    return groups_[level][g].front();
}

Space Hierarchy::space(int level, int rank, int root) const {
    if (rank < 0 || rank >= size_ || level < 0 || level > levels())
        throw std::out_of_range("Hierarchy::space: level/rank out of range");
    Space s;
    s.level = level;
    const bool rooted = root >= 0 && root < size_;
    if (level == 0) {
        s.members = groups_[0][groupOf_[0][rank]];
        s.leader = leaderOf(0, rank, root);
        return s;
    }
    // Only the leader of its level-(level-1) group represents it one level up.
    if (leaderOf(level - 1, rank, root) != rank) return s;

    const std::vector<int>& kids =
        level < levels() ? children_[level][groupOf_[level][rank]] : children_[level][0];
    const auto& inner = groups_[level - 1];
    s.members.reserve(kids.size());
    for (int c : kids) s.members.push_back(inner[c].front());
    if (rooted) {
        // The root stands in for the lowest rank of its own group; keep members ascending.
        const int rootGroup = groupOf_[level - 1][root];
        auto it = std::lower_bound(kids.begin(), kids.end(), rootGroup);
        if (it != kids.end() && *it == rootGroup) {
            size_t i = static_cast<size_t>(it - kids.begin());
            s.members[i] = root;
            while (i + 1 < s.members.size() && s.members[i + 1] < s.members[i]) {
                std::swap(s.members[i], s.members[i + 1]);
                ++i;
            }
        }
    }
    s.leader = leaderOf(level, rank, root);
    return s;
}

bool Hierarchy::isTrivial() const {
    for (int l = 0; l < levels(); ++l) {
        const int count = groupCount(l);
        if (count > 1 && count < size_) return false;
    }
    return true;
}

std::string Hierarchy::describe(const std::vector<std::string>& levelNames) const {
    std::ostringstream out;
    out << "hierarchy of " << size_ << " ranks, " << levels() << (levels() == 1 ? " level" : " levels");
    if (isTrivial()) out << " (trivial: no level splits the communicator)";
    for (int l = 0; l < levels(); ++l) {
        const std::string name =
            l < static_cast<int>(levelNames.size()) ? levelNames[l] : "level " + std::to_string(l);
        // Histogram of group sizes: bounded output however many ranks there are.
        std::map<size_t, int> sizes;
        for (const auto& g : groups_[l]) ++sizes[g.size()];
        out << "\n  " << name << ": " << groupCount(l) << (groupCount(l) == 1 ? " group" : " groups")
            << " of size ";
        bool first = true;
        for (const auto& [sz, count] : sizes) {
            out << (first ? "" : ", ") << sz;
            if (sizes.size() > 1) out << " (x" << count << ")";
            first = false;
        }
        if (l > 0) {
            size_t maxKids = 0;
            for (const auto& kids : children_[l]) maxKids = std::max(maxKids, kids.size());
            out << "; up to " << maxKids << " inner leaders per group";
        }
    }
    if (levels() > 0) {
        const auto& outer = groups_[levels() - 1];
        constexpr size_t kShown = 16;
        out << "\n  leader space: " << outer.size() << " leaders (unrooted):";
        for (size_t g = 0; g < outer.size() && g < kShown; ++g) out << ' ' << outer[g].front();
        if (outer.size() > kShown) out << " ...";
    }
    return out.str();
}

}  // namespace hieragg::hier
