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

FragmentPipeline FragmentPipeline::of(size_t total, size_t perFragment, size_t window) {
    FragmentPipeline p;
    if (total == 0 || perFragment == 0) return p;
    p.fragments = (total + perFragment - 1) / perFragment;
    p.window = std::min(window, p.fragments);
    p.lastCount = total - (p.fragments - 1) * perFragment;
    return p;
}

void FragmentPipeline::setStride(uint32_t slot, ptrdiff_t stride, bool ring) {
    if (slotStride.size() <= slot) {
        slotStride.resize(slot + 1, 0);
        slotRing.resize(slot + 1, 0);
    }
    slotStride[slot] = stride;
    slotRing[slot] = ring ? 1 : 0;
}

size_t Schedule::executedSteps() const {
    size_t n = steps.size();
    for (const FragmentPipeline& p : pipelines) n += p.templateSize() * p.fragments - p.templateSize();
    return n;
}

}  // namespace hieragg
