#include "hieragg/aggtree/KaryTree.hpp"

#include <stdexcept>

namespace hieragg::aggtree {

Tree buildKaryTree(int P, int k, int root) {
    if (P < 1 || k < 1 || root < 0 || root >= P) throw std::invalid_argument("buildKaryTree: bad P, k or root");
    Tree t;
    t.root = root;
    t.parent.assign(P, Tree::kNone);
    for (int r = 0; r < P; ++r) {
        const long long v = (static_cast<long long>(r) - root + P) % P;
        if (v == 0) continue;
        t.parent[r] = static_cast<int>(((v - 1) / k + root) % P);
    }
    t.rebuildChildren();
    return t;
}

}  // namespace hieragg::aggtree
