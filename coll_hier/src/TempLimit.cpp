#include "hieragg/hier/TempLimit.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg::recipes {

namespace {
constexpr size_t kMinSegment = 64;

// Override value of the registry row `name` of `kind` (0 = auto if absent).
int algorithmIndex(hieragg_coll_kind kind, const std::string& name) {
    const hier::AlgorithmInfo* a = hier::algorithmByName(kind, name);
    return a ? hier::algorithmValue(*a) : 0;
}

// `call` changed (segment or algorithm): its plan must be chosen again, the same way on
// every rank (the model reads only what all ranks share), once for all ranks' schedules.
void replan(CollCall& call) {
    call.plan.reset();
    if (!hier::modelDriven(call.args.kind)) return;
    call.plan = hier::planOf(call);
}
}  // namespace

bool tempNeedIsGlobal(const CollCall& call) {
    return !call.inter && !dependsOnPerRankVectors(call.args.kind);
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

TempLimitChoice chooseUnderTempLimit(const CollCall& call, size_t maxTempBytes) {
    Schedule chosen = buildSchedule(call);
    if (maxTempBytes == 0) return {std::move(chosen), true, 0};
    // Only this rank's need is known (v-variants, intercommunicators): another rank may
    // decide otherwise, so the schedule never changes here (ranks would run different
    // schedules and wait for each other); over the limit it runs all the same.
    if (!tempNeedIsGlobal(call)) {
        const size_t need = chosen.tempBytes();
        return {std::move(chosen), need <= maxTempBytes, need};
    }
    const size_t firstNeed = worstTempBytes(call);
    if (firstNeed <= maxTempBytes) return {std::move(chosen), true, firstNeed};
    size_t leastNeed = firstNeed;
    CollCall least = call;
    // Fallback rows, in order: `direct` (gather/scatter: nothing staged), `flat` (one
    // pulsed tree), then `ring` for collectives without a flat row (allgather: Bruck's
    // rotated scratch holds every block, the ring none). A row is tried only where its
    // needs hold (the same verdict on every rank).
    std::vector<int> fallbacks;
    for (const char* name : {"direct", "flat", "ring"}) {
        const int row = algorithmIndex(call.args.kind, name);
        if (row == 0 || row == call.algorithm) continue;
        CollCall probe = call;
        probe.algorithm = row;
        if (hier::forcedAlgorithm(probe)) {
            fallbacks.push_back(row);
            if (std::string(name) == "flat") break;
        }
    }
    for (size_t attempt = 0; attempt <= fallbacks.size(); ++attempt) {
        CollCall smaller = call;
        if (attempt > 0) smaller.algorithm = fallbacks[attempt - 1];
        for (bool first = true;; first = false) {
            // The call as chosen was measured above (firstNeed). The plan caps pipeline
            // segments and pulses by segmentBytes: halving it shrinks them, once the plan
            // is made again.
            if (!first || attempt > 0) {
                replan(smaller);
                const size_t need = worstTempBytes(smaller);
                if (need <= maxTempBytes) return {buildSchedule(smaller), true, need};
                if (need < leastNeed) {  // every rank computes the same needs: the same choice
                    leastNeed = need;
                    least = smaller;
                }
            }
            if (smaller.segmentBytes <= kMinSegment) break;
            smaller.segmentBytes = std::max(kMinSegment, smaller.segmentBytes / 2);
        }
    }
    // Nothing fits: the job runs over the limit (the caller warns) rather than failing
    // a call that can run; the smallest need tried, the same on every rank.
    return {buildSchedule(least), false, leastNeed};
}

std::optional<Schedule> scheduleWithinTempLimit(const CollCall& call, size_t maxTempBytes) {
    TempLimitChoice c = chooseUnderTempLimit(call, maxTempBytes);
    if (!c.fits) return std::nullopt;
    return std::move(c.schedule);
}

}  // namespace hieragg::recipes
