// Shared pieces of the simulator tests: datatypes, operations and hierarchies.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/SimNetwork.hpp"
#include "hieragg/SimRun.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::testing {

inline sim::SimType& int64Type() {
    static sim::SimType t{8, "int64"};
    return t;
}
inline sim::SimType& doubleType() {
    static sim::SimType t{8, "double"};
    return t;
}
// Sum of int64.
inline sim::SimOp& sumOp() {
    static sim::SimOp op{[](const void* s, void* d, size_t n, const sim::SimType&) {
                             auto* a = static_cast<const int64_t*>(s);
                             auto* b = static_cast<int64_t*>(d);
                             for (size_t i = 0; i < n; ++i) b[i] += a[i];
                         },
                         true};
    return op;
}
// Non-commutative: 2x2 integer matrix product mod 2^64 on int64 quadruples
// (count must be a multiple of 4). dst = src * dst.
inline sim::SimOp& matmulOp() {
    static sim::SimOp op{[](const void* s, void* d, size_t n, const sim::SimType&) {
                             auto* a = static_cast<const uint64_t*>(s);
                             auto* b = static_cast<uint64_t*>(d);
                             for (size_t i = 0; i + 3 < n; i += 4) {
                                 uint64_t r0 = a[i] * b[i] + a[i + 1] * b[i + 2];
                                 uint64_t r1 = a[i] * b[i + 1] + a[i + 1] * b[i + 3];
                                 uint64_t r2 = a[i + 2] * b[i] + a[i + 3] * b[i + 2];
                                 uint64_t r3 = a[i + 2] * b[i + 1] + a[i + 3] * b[i + 3];
                                 b[i] = r0, b[i + 1] = r1, b[i + 2] = r2, b[i + 3] = r3;
                             }
                         },
                         false};
    return op;
}

// Hierarchy with one level of blocks of `block` consecutive ranks (virtual:N).
inline hier::Hierarchy virtualNodes(int size, int block) {
    std::vector<std::vector<int64_t>> keys(1, std::vector<int64_t>(size));
    for (int r = 0; r < size; ++r) keys[0][r] = r / block;
    return hier::Hierarchy::fromKeys(size, keys);
}
// Two levels: blocks of `inner` inside blocks of `outer`.
inline hier::Hierarchy nestedNodes(int size, int inner, int outer) {
    std::vector<std::vector<int64_t>> keys(2, std::vector<int64_t>(size));
    for (int r = 0; r < size; ++r) {
        keys[0][r] = r / inner;
        keys[1][r] = r / outer;
    }
    return hier::Hierarchy::fromKeys(size, keys);
}
// Round robin: rank mod n.
inline hier::Hierarchy roundRobin(int size, int n) {
    std::vector<std::vector<int64_t>> keys(1, std::vector<int64_t>(size));
    for (int r = 0; r < size; ++r) keys[0][r] = r % n;
    return hier::Hierarchy::fromKeys(size, keys);
}

inline CollCall baseCall(hieragg_coll_kind kind, int rank, int size, const hier::Hierarchy* h) {
    CollCall c;
    c.args.kind = kind;
    c.rank = rank;
    c.size = size;
    c.hierarchy = h;
    return c;
}

inline sim::BuildFn recipeBuilder() {
    return [](const CollCall& c) { return recipes::buildSchedule(c); };
}

}  // namespace hieragg::testing
