// Shared pieces of the data-movement simulator tests (gather, scatter,
// allgather, alltoall, neighbor): the hierarchies every test runs over, a
// 16-byte type to pair with int64 (same signature, different type) and traffic
// helpers. Values are int64 words computed in closed form from (rank, index).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "SimFixture.hpp"

namespace hieragg::testing {

inline sim::SimType& pairType() {
    static sim::SimType t{16, "int64x2"};
    return t;
}

struct NamedHierarchy {
    std::string name;
    std::shared_ptr<hier::Hierarchy> h;  // nullptr: no decomposition
};

// Flat, virtual nodes of 1..4, nested 2-in-4, round robin over 2 and 3.
inline std::vector<NamedHierarchy> dataMovementHierarchies(int size) {
    std::vector<NamedHierarchy> out;
    out.push_back({"none", nullptr});
    for (int block : {1, 2, 3, 4})
        out.push_back({"virtual" + std::to_string(block), std::make_shared<hier::Hierarchy>(virtualNodes(size, block))});
    out.push_back({"nested2in4", std::make_shared<hier::Hierarchy>(nestedNodes(size, 2, 4))});
    out.push_back({"roundrobin2", std::make_shared<hier::Hierarchy>(roundRobin(size, 2))});
    out.push_back({"roundrobin3", std::make_shared<hier::Hierarchy>(roundRobin(size, 3))});
    return out;
}

// Messages between ranks in different groups of `groupOf`.
template <class GroupOf>
uint64_t crossingMessages(const sim::SimNetwork& net, int size, GroupOf groupOf) {
    uint64_t n = 0;
    for (int s = 0; s < size; ++s)
        for (int d = 0; d < size; ++d)
            if (groupOf(s) != groupOf(d)) n += net.traffic(s, d).messages;
    return n;
}

// Word count per element of a type (the tests' types are whole int64 words).
inline size_t wordsOf(const sim::SimType& t) { return t.size / 8; }

}  // namespace hieragg::testing
