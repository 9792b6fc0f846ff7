// Broadcast (one-to-all): root -> leaders over the leader space, then each
// leader -> its subspace, all subspaces at once; nested levels top-down.
#include <algorithm>
#include <string>

#include "hieragg/algorithms/ChainBcast.hpp"
#include "hieragg/algorithms/KnomialBcast.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/SpaceGroup.hpp"

namespace hieragg::recipes {

namespace {
enum Algo { Auto = 0, Knomial = 1, Chain = 2, Flat = 3 };
}

Schedule bcast(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b;
    BufRef buf{kRecvBuf, 0};
    TypeRef type{kRecvType, a.rcount};
    const size_t bytes = a.rcount * c.rtype.size;
    const size_t segCount = c.rtype.size ? std::max<size_t>(1, c.segmentBytes / c.rtype.size) : 0;

    if (c.inter) {
        // Root sends to remote rank 0, which broadcasts inside its local group.
        b.appendAlgorithm("inter-root+knomial");
        if (a.root == HIERAGG_ROOT) {
            b.send(0, buf, type);
        } else if (a.root >= 0) {
            StepId got = c.rank == 0 ? b.recv(a.root, buf, type) : kNoStep;
            b.setLocalComm(true);
            KnomialBcast{2, 0}.emit(b, Group::whole(c.size, c.rank), 0, buf, type, c.rtype.extent, got, stageChannel(1));
        }
        return b.finish();
    }

    // Chain pipelines long messages inside a space (SPEC 3.5); k-nomial elsewhere.
    auto algoFor = [&](int level, int levels) {
        if (c.algorithm == Knomial || c.algorithm == Flat) return Knomial;
        if (c.algorithm == Chain) return level < levels ? Chain : Knomial;
        return (bytes >= 4 * c.segmentBytes && level < levels) ? Chain : Knomial;
    };
    if (!useHierarchy(c) || c.algorithm == Flat) {
        bool chain = c.algorithm == Chain;
        b.appendAlgorithm(chain ? "flat-chain" : "flat-knomial");
        Group g = Group::whole(c.size, c.rank);
        if (chain) ChainBcast{segCount}.emit(b, g, a.root, buf, type, c.rtype.extent, kNoStep, 0);
        else KnomialBcast{2, 0}.emit(b, g, a.root, buf, type, c.rtype.extent, kNoStep, 0);
        return b.finish();
    }
    const hier::Hierarchy& h = *c.hierarchy;
    StepId ready = kNoStep;
    for (int level = h.levels(); level >= 0; --level) {
        hier::SpaceGroup sg = hier::spaceGroup(h, level, c.rank, a.root);
        if (sg.group.size() <= 1) continue;
        Algo algo = algoFor(level, h.levels());
        b.appendAlgorithm(std::string(level == h.levels() ? "leaders:" : "L" + std::to_string(level) + ":") +
                          (algo == Chain ? "chain" : "knomial"));
        Emitted e = algo == Chain
                        ? ChainBcast{segCount}.emit(b, sg.group, sg.rootIdx, buf, type, c.rtype.extent, ready,
                                                    stageChannel(static_cast<uint32_t>(level)))
                        : KnomialBcast{2, 0}.emit(b, sg.group, sg.rootIdx, buf, type, c.rtype.extent,
                                                  ready, stageChannel(static_cast<uint32_t>(level)));
        ready = e.ready;
    }
    return b.finish();
}

}  // namespace hieragg::recipes
