#include "hieragg/hier/TempLimit.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

namespace {
constexpr size_t kMinSegment = 64;

// Index of `name` in the override names of `kind` (0 = auto if absent).
int algorithmIndex(hieragg_coll_kind kind, const std::string& name) {
    const std::string names = recipeFor(kind).algorithms;
    int index = 0;
    size_t start = 0;
    while (start <= names.size()) {
        const size_t comma = std::min(names.find(',', start), names.size());
        if (names.compare(start, comma - start, name) == 0) return index;
        ++index;
        start = comma + 1;
    }
    return 0;
}
}  // namespace

bool tempNeedIsGlobal(const CollCall& call) {
    if (call.inter) return false;
    switch (call.args.kind) {
    case HIERAGG_ALLGATHERV: case HIERAGG_ALLTOALLV: case HIERAGG_ALLTOALLW: case HIERAGG_GATHERV:
    case HIERAGG_SCATTERV: case HIERAGG_REDUCE_SCATTER: case HIERAGG_NEIGHBOR_ALLGATHER:
    case HIERAGG_NEIGHBOR_ALLGATHERV: case HIERAGG_NEIGHBOR_ALLTOALL: case HIERAGG_NEIGHBOR_ALLTOALLV:
    case HIERAGG_NEIGHBOR_ALLTOALLW:
        return false;
    default:
        return true;
    }
}

size_t worstTempBytes(const CollCall& call) {
    if (!tempNeedIsGlobal(call)) return buildSchedule(call).tempBytes();
    size_t worst = 0;
    CollCall other = call;
    for (int r = 0; r < call.size; ++r) {
        other.rank = r;
        // In-place is the root's own choice (its send arguments are not significant).
        other.args.in_place = r == call.rank ? call.args.in_place : 0;
        worst = std::max(worst, buildSchedule(other).tempBytes());
    }
    return worst;
}

std::optional<Schedule> scheduleWithinTempLimit(const CollCall& call, size_t maxTempBytes) {
    Schedule chosen = buildSchedule(call);
    if (maxTempBytes == 0) return chosen;
    if (chosen.tempBytes() <= maxTempBytes && (!tempNeedIsGlobal(call) || worstTempBytes(call) <= maxTempBytes))
        return chosen;
    const int flat = algorithmIndex(call.args.kind, "flat");
    for (int attempt = 0; attempt < 2; ++attempt) {
        CollCall smaller = call;
        if (attempt == 1) {
            if (flat == 0 || call.algorithm == flat) break;
            smaller.algorithm = flat;
        }
        for (;;) {
            if (worstTempBytes(smaller) <= maxTempBytes) return buildSchedule(smaller);
            if (smaller.segmentBytes <= kMinSegment) break;
            smaller.segmentBytes = std::max(kMinSegment, smaller.segmentBytes / 2);
        }
    }
    return std::nullopt;
}

}  // namespace hieragg::recipes
