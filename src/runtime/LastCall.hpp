// The last call of a communicator (docs/architecture.md, "The cost of one call"): its
// signature (schedule and plan keys) and what it ran, so that a call with the same signature
// skips both caches; its raw arguments, so that a repeat of them skips describing its types
// and writing its keys; and the registry rows that served it (MPI_T). Part of CallCache.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "hieragg/Schedule.hpp"
#include "hieragg/abi.h"
#include "hieragg/hier/Selection.hpp"

namespace hieragg {

// Everything of the arguments the schedule and plan keys read besides the per-rank vectors,
// field by field (buffers only by whether they are null: they are bound per call).
inline bool sameRawCall(const hieragg_coll_args& a, const hieragg_coll_args& b) {
    return a.kind == b.kind && a.root == b.root && a.in_place == b.in_place && a.scount == b.scount &&
           a.rcount == b.rcount && a.stype == b.stype && a.rtype == b.rtype && a.op == b.op &&
           a.op_commutative == b.op_commutative && a.float_sum == b.float_sum &&
           (a.sbuf == nullptr) == (b.sbuf == nullptr) && (a.rbuf == nullptr) == (b.rbuf == nullptr) &&
           a.topology == b.topology && a.indegree == b.indegree && a.outdegree == b.outdegree;
}

struct LastCall {
    std::string signature;
    std::shared_ptr<const hier::Plan> plan;
    std::shared_ptr<const Schedule> schedule;
    std::shared_ptr<const std::vector<char>> vectors;  // its per-rank vectors (CallVectors.hpp)
    // The raw arguments, kept when the datatypes are predefined and the kind has no per-peer
    // datatypes (CallPreparation.cpp, scheduleFor): a call with the same raw arguments and
    // per-rank vectors equal to `vectors` has the last signature.
    bool rawValid = false;
    hieragg_coll_args raw{};
    hieragg_dtype_info rawStype{}, rawRtype{};
    int rawAlgorithm = 0;
    // MPI_T: the registry rows that served the last signature (countServed), valid once
    // counted; `isLast` says the call being launched has that signature.
    static constexpr size_t kMaxServed = 16;
    size_t served[kMaxServed];
    size_t servedCount = 0;
    bool servedValid = false;
    bool isLast = false;

    // The last call again, with the same raw arguments. Its per-rank vectors, for a kind that
    // has any, are still to be compared by value (`vectors`).
    bool repeatsRaw(const hieragg_coll_args& args) const { return rawValid && sameRawCall(args, raw); }
};

}  // namespace hieragg
