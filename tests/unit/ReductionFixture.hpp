// Shared pieces of the reduction-family simulator tests: the decompositions to
// sweep, rank-dependent inputs, and the reference product computed by a direct
// loop in rank order with the op itself.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "SimFixture.hpp"
#include "hieragg/CallBinding.hpp"

namespace hieragg::testing {

struct ReductionDecomposition {
    std::string name;
    hier::Hierarchy h;
};

// Flat, virtual blocks of 1..4, nested 2-in-4 and round robin over 2 and 3.
inline std::vector<ReductionDecomposition> reductionHierarchies(int p) {
    std::vector<ReductionDecomposition> v;
    v.push_back({"flat", hier::Hierarchy::flat(p)});
    for (int block : {1, 2, 3, 4}) v.push_back({"virtual:" + std::to_string(block), virtualNodes(p, block)});
    v.push_back({"nested:2/4", nestedNodes(p, 2, 4)});
    v.push_back({"roundrobin:2", roundRobin(p, 2)});
    v.push_back({"roundrobin:3", roundRobin(p, 3)});
    return v;
}

// Rank r's input: distinct per rank and element; for matmul, quadruples are 2x2
// matrices that do not commute with each other.
inline std::vector<int64_t> rankInput(int r, size_t count, int salt = 0) {
    std::vector<int64_t> v(count);
    for (size_t i = 0; i < count; ++i) {
        switch (i % 4) {
        case 0: v[i] = 1 + r; break;
        case 1: v[i] = 3 * r + static_cast<int64_t>(i) + salt; break;
        case 2: v[i] = (r * 7 + static_cast<int64_t>(i)) % 5; break;
        default: v[i] = 2 + (r % 3); break;
        }
    }
    return v;
}

// a[lo] op a[lo+1] op ... op a[hi-1], by a direct loop (the op computes dst = src op dst).
inline std::vector<int64_t> rankOrderProduct(sim::SimOp& op, const std::vector<std::vector<int64_t>>& a, int lo,
                                             int hi) {
    std::vector<int64_t> acc = a[lo];
    for (int r = lo + 1; r < hi; ++r) {
        std::vector<int64_t> next = a[r];
        op.apply(acc.data(), next.data(), next.size(), int64Type());
        acc = next;
    }
    return acc;
}

// One reduction call per rank with the usual fields filled.
inline CollCall reductionCall(hieragg_coll_kind kind, int rank, int size, const hier::Hierarchy* h,
                              sim::SimOp& op, size_t count, size_t segmentBytes, int algorithm = 0) {
    CollCall c = baseCall(kind, rank, size, h);
    c.args.stype = c.args.rtype = &int64Type();
    c.args.op = &op;
    c.args.op_commutative = op.commutative ? 1 : 0;
    c.args.scount = c.args.rcount = count;
    c.segmentBytes = segmentBytes;
    c.algorithm = algorithm;
    return c;
}

// A reduction call's buffers: in place, MPI passes no sbuf and the input sits in rbuf.
inline void setBuffers(CollCall& c, std::vector<int64_t>& in, std::vector<int64_t>& out, bool inPlace) {
    c.args.sbuf = inPlace ? nullptr : in.data();
    c.args.in_place = inPlace;
    c.args.rbuf = out.data();
}

}  // namespace hieragg::testing
