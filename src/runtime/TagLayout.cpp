#include "TagLayout.hpp"

namespace hieragg {

namespace {
// Tags below the top the layout of window w spans: 4w call blocks plus the setup blocks.
long long span(uint32_t w) {
    return (4LL * w + TagLayout::kSetupBlocks) * static_cast<long long>(TagLayout::kChannels);
}
}  // namespace

TagLayout TagLayout::forMaxTag(long long maxTag, int top, std::string& why) {
    if (top >= 0) top = kDefaultTop;
    // Tags from -(maxTag + 1) to top, i.e. maxTag + 2 + top of them (top included).
    const long long room = maxTag + 1 + top + 1;
    uint32_t w = kMaxWindow;
    while (w >= kMinWindow && span(w) > room) w /= 2;
    if (w < kMinWindow) {
        // The smallest layout's lowest tag is top - span + 1 = -(MPI_TAG_UB + 1).
        why = "the PML's tag space (MPI_TAG_UB " + std::to_string(maxTag) + ") is too small for hieragg's tags (" +
              "they need MPI_TAG_UB >= " + std::to_string(span(kMinWindow) - top - 2) + ")";
        return TagLayout(0, top);
    }
    return TagLayout(w, top);
}

TagLayout TagLayout::capped(uint32_t limit) const {
    if (limit == 0 || window_ == 0 || limit >= window_) return *this;
    uint32_t w = 1;
    while (w * 2 <= limit) w *= 2;
    return TagLayout(w, top_);
}

int TagLayout::callBase(uint32_t seq, TagSpace space, bool localGroup) const {
    const long long block = static_cast<long long>(window_) * kChannels;
    long long t = callRule().base(seq);
    if (space == TagSpace::Persistent) t -= 2 * block;
    if (localGroup) t -= block;
    return static_cast<int>(t);
}

int TagLayout::setupBase(uint32_t block) const {
    return static_cast<int>(top_ - 4LL * window_ * kChannels - static_cast<long long>(block) * kChannels);
}

long long TagLayout::lowest() const { return top_ - span(window_) + 1; }

}  // namespace hieragg
