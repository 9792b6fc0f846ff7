// The blocks of an allgather or allgatherv call in rbuf, as its recipe and the rows' builders
// (algorithms/allgather/) address them: rank r's block at its displacement (allgather:
// r * rcount), this rank's own input (sbuf, or its block of rbuf in place), and which blocks
// are adjacent in rbuf (one message may carry a run of them).
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "DataMovement.hpp"
#include "hieragg/CollCall.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/algorithms/Block.hpp"

namespace hieragg::recipes {

struct GatheredBlocks {
    const CollCall& c;

    bool varying() const { return c.args.kind == HIERAGG_ALLGATHERV; }
    size_t countOf(int r) const { return varying() ? static_cast<size_t>(c.args.rcounts[r]) : c.args.rcount; }
    ptrdiff_t displacementOf(int r) const {
        return varying() ? static_cast<ptrdiff_t>(c.args.rdispls[r]) : static_cast<ptrdiff_t>(r * c.args.rcount);
    }
    Block of(int r) const { return {{kRecvBuf, displacementOf(r) * c.rtype.extent}, {kRecvType, countOf(r)}}; }
    Block mine() const { return c.args.in_place ? of(c.rank) : Block{{kSendBuf, 0}, {kSendType, c.args.scount}}; }
    bool adjacent(int x, int y) const {
        return y == x + 1 && displacementOf(y) == displacementOf(x) + static_cast<ptrdiff_t>(countOf(x));
    }
    // Every rank's block, in rank order.
    std::vector<Block> all() const {
        std::vector<Block> out;
        for (int r = 0; r < c.size; ++r) out.push_back(of(r));
        return out;
    }
    // Copies my input into my block of rbuf (nothing in place); the step, or kNoStep.
    StepId placeMine(ScheduleBuilder& b) const {
        if (c.args.in_place) return kNoStep;
        const Block in = mine(), out = of(c.rank);
        return b.copy(in.buf, in.type, out.buf, out.type);
    }
};

// The builders of the leader rows (algorithms/allgather/: leader_ring, multileader): over
// the decomposition only (else nullopt: the recipe's flat ring runs); an allgather of empty
// blocks is an empty schedule named `name`; else build(blocks).
template <class Build>
std::optional<Schedule> buildOverLeaders(const CollCall& c, const char* name, Build build) {
    if (dm::Levels(c).flat) return std::nullopt;
    if (c.args.kind == HIERAGG_ALLGATHER && c.args.rcount * c.rtype.size == 0) return ScheduleBuilder(name).finish();
    const GatheredBlocks blocks{c};
    return build(blocks);
}

}  // namespace hieragg::recipes
