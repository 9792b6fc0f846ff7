#include "hieragg/Schedule.hpp"

#include <algorithm>

namespace hieragg {

size_t Schedule::countKind(StepKind k) const {
    return static_cast<size_t>(
        std::count_if(steps.begin(), steps.end(), [k](const Step& s) { return s.kind == k; }));
}

size_t Schedule::tempBytes() const {
    size_t total = 0;
    for (const auto& t : temps) total += t.bytes;
    return total;
}

}  // namespace hieragg

namespace hieragg {

size_t Schedule::executedSteps() const {
    if (!pipeline.active()) return steps.size();
    return steps.size() - pipeline.templateSize() + pipeline.templateSize() * pipeline.fragments;
}

}  // namespace hieragg
