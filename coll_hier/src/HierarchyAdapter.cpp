#include "hieragg/hier/HierarchyAdapter.hpp"

namespace hieragg::hier {

aggtree::ProcessHierarchy toProcessHierarchy(const Hierarchy& h) {
    aggtree::ProcessHierarchy p;
    p.process_count = h.commSize();
    p.levels.resize(h.levels());
    for (int l = 0; l < h.levels(); ++l) {
        p.levels[l].resize(h.commSize());
        for (int r = 0; r < h.commSize(); ++r) p.levels[l][r] = h.groupOf(l, r);
    }
    return p;
}

}  // namespace hieragg::hier
