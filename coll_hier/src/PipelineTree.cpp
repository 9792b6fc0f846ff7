#include "hieragg/hier/PipelineTree.hpp"

#include "hieragg/hier/SpaceGroup.hpp"

namespace hieragg::hier {

MemberTree pipelineTree(const Hierarchy& h, int root, TreeShape leaders, TreeShape inner) {
    const int n = h.commSize();
    MemberTree m;
    m.root = root;
    m.parent.assign(n, -1);
    m.children.assign(n, {});
    m.inOrder = false;  // commutative reductions only; gather does not use it
    // Spaces innermost first, each built once: a vertex's children end up ordered inner
    // levels first and the next leader last, each level's in ascending virtual order.
    for (int level = 0; level <= h.levels(); ++level) {
        std::vector<char> seen(n, 0);
        for (int r = 0; r < n; ++r) {
            if (seen[r]) continue;
            const SpaceGroup sg = spaceGroup(h, level, r, root);
            if (sg.group.me < 0) continue;
            for (int x : sg.group.ranks) seen[x] = 1;
            if (sg.group.size() <= 1) continue;
            const MemberTree t = (level == h.levels() ? leaders : inner).build(sg.group.size(), sg.rootIdx);
            for (int i = 0; i < sg.group.size(); ++i)
                for (int c : t.children[i]) {
                    m.parent[sg.group.ranks[c]] = sg.group.ranks[i];
                    m.children[sg.group.ranks[i]].push_back(sg.group.ranks[c]);
                }
        }
    }
    return m;
}

}  // namespace hieragg::hier
