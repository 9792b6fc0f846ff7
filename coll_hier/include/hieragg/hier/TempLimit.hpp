// coll_hieragg_max_temp_bytes: choosing a schedule whose temporaries fit a limit.
// The choice must be the same on every rank (they must run matching schedules),
// so it is made from what every rank knows: for calls whose arguments are the same
// everywhere (all but the v-variants and intercommunicators) each rank builds the
// schedule of every rank and takes the largest need. Tried in order: the schedule
// as chosen, the same with halved pulses/segments (down to 64 bytes), then the
// row without staging (gather/scatter `direct`), the flat algorithm (or, for a
// collective without one, the ring) with halved segments. None fits: the
// candidate with the smallest need runs anyway, chosen alike on every rank, and
// the runtime warns once: a user's cap on scratch memory must not end a job
// that can run. Where only this rank's need is known, the schedule is never
// changed (another rank could decide otherwise and both would wait).
#pragma once
#include <cstddef>
#include <optional>

#include "hieragg/CollCall.hpp"
#include "hieragg/Schedule.hpp"

namespace hieragg::recipes {

// Whether every rank can tell the temporaries of every other rank's schedule.
bool tempNeedIsGlobal(const CollCall& call);
// The largest temporaries of `call`'s schedule over all ranks (only this rank's if
// !tempNeedIsGlobal).
size_t worstTempBytes(const CollCall& call);
struct TempLimitChoice {
    Schedule schedule;
    bool fits;            // within the limit (or no limit)
    size_t worstBytes;    // the largest need of any rank (this rank's if !tempNeedIsGlobal)
};
// The schedule to run under `maxTempBytes` (0: no limit): the first that fits, or the
// one with the smallest need (fits = false).
TempLimitChoice chooseUnderTempLimit(const CollCall& call, size_t maxTempBytes);
// The schedule to run under `maxTempBytes` if one fits, or none.
std::optional<Schedule> scheduleWithinTempLimit(const CollCall& call, size_t maxTempBytes);

}  // namespace hieragg::recipes
