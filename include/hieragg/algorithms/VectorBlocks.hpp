// How the bandwidth-optimal reductions cut a vector of `count` elements into `k`
// contiguous blocks: sizes differ by at most one element, larger blocks first.
// Every rank computes the same cut, so block j means the same elements everywhere.
#pragma once
#include <algorithm>
#include <cstddef>

namespace hieragg {

struct VectorBlocks {
    size_t count = 0;
    size_t k = 1;
    size_t first(size_t j) const { return j * (count / k) + std::min(j, count % k); }
    size_t size(size_t j) const { return count / k + (j < count % k ? 1 : 0); }
    // Elements [first(lo), first(hi)).
    size_t span(size_t lo, size_t hi) const { return first(hi) - first(lo); }
    size_t largest() const { return count / k + (count % k ? 1 : 0); }
};

}  // namespace hieragg
