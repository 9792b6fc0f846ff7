// The ranks a flat algorithm runs over: a space of the decomposition, or the
// whole communicator. Algorithms address members by index and send to ranks.
#pragma once
#include <numeric>
#include <vector>

namespace hieragg {

struct Group {
    std::vector<int> ranks;  // communicator ranks, in the order the algorithm numbers them
    int me = -1;             // my index in ranks, -1 if not a member

    static Group whole(int size, int rank) {
        Group g;
        g.ranks.resize(size);
        std::iota(g.ranks.begin(), g.ranks.end(), 0);
        g.me = rank;
        return g;
    }
    int size() const { return static_cast<int>(ranks.size()); }
    // Ring neighbours of a member: the ranks of the next and of the previous index.
    int next() const { return ranks[(me + 1) % size()]; }
    int previous() const { return ranks[(me + size() - 1) % size()]; }
    int indexOf(int rank) const {
        for (int i = 0; i < size(); ++i)
            if (ranks[i] == rank) return i;
        return -1;
    }
};

}  // namespace hieragg
