// What one pulse of a prefix reduction reads and writes, whichever algorithm runs it
// (LinearScan, RecursiveDoublingScan: each adds its own scratch).
#pragma once
#include "hieragg/ScheduleBuilder.hpp"

namespace hieragg {

struct ScanPulse {
    BufRef input;         // this member's contribution; may alias out (in place)
    BufRef out;           // the prefix result (exclusive: untouched on member 0)
    TypeRef type;
    Deps scratchFree;     // before writing the algorithm's scratch or out
    uint32_t channel = 0;
};

}  // namespace hieragg
