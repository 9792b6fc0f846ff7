#include "hieragg/aggtree/KnomialTree.hpp"

#include <stdexcept>

namespace hieragg::aggtree {

std::uint64_t knomialParentPosition(std::uint64_t v, int k) {
    const std::uint64_t base = static_cast<std::uint64_t>(k);
    std::uint64_t weight = 1;
    while ((v / weight) % base == 0) weight *= base;
    return v - ((v / weight) % base) * weight;
}

std::vector<std::uint64_t> knomialChildPositions(std::uint64_t v, int k, std::uint64_t P) {
    const std::uint64_t base = static_cast<std::uint64_t>(k);
    std::vector<std::uint64_t> out;
    // Children set one of the trailing zero digits of v; the first such digit above P ends it.
    for (std::uint64_t weight = 1; v + weight < P; weight *= base) {
        if ((v / weight) % base != 0) break;
        for (std::uint64_t d = 1; d < base && v + d * weight < P; ++d) out.push_back(v + d * weight);
        if (weight > P / base) break;  // next weight would exceed P (and could overflow)
    }
    // Increasing order: lower digits first gives v+1..v+(k-1), then v+k.., already sorted.
    return out;
}

Tree buildKnomialTree(int P, int k, int root) {
    if (P < 1 || k < 2 || root < 0 || root >= P) throw std::invalid_argument("buildKnomialTree: bad P, k or root");
    Tree t;
    t.root = root;
    t.parent.assign(P, Tree::kNone);
    for (int r = 0; r < P; ++r) {
        const std::uint64_t v = static_cast<std::uint64_t>((static_cast<long long>(r) - root + P) % P);
        if (v == 0) continue;
        t.parent[r] = static_cast<int>((knomialParentPosition(v, k) + root) % P);
    }
    t.rebuildChildren();
    return t;
}

}  // namespace hieragg::aggtree
