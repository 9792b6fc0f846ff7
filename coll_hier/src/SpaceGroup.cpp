#include "hieragg/hier/SpaceGroup.hpp"

namespace hieragg::hier {

SpaceGroup spaceGroup(const Hierarchy& h, int level, int rank, int root) {
    SpaceGroup sg;
    Space sp = h.space(level, rank, root);
    if (sp.members.empty()) return sg;
    sg.group.ranks = sp.members;
    sg.group.me = sp.indexOf(rank);
    int r = root >= 0 && sp.contains(root) ? root : sp.leader;
    sg.rootIdx = r >= 0 ? sp.indexOf(r) : 0;
    if (sg.rootIdx < 0) sg.rootIdx = 0;
    return sg;
}

}  // namespace hieragg::hier
