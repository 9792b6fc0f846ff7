#include "DirectRooted.hpp"

#include <vector>

#include "RootedBlocks.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::recipes {

namespace {
// Every rank but the root, those outside the root's outermost group first: their blocks
// cross the slowest link, so they start before the shared-memory ones.
std::vector<int> peersRemoteFirst(const CollCall& c, int root) {
    std::vector<int> remote, local;
    const hier::Hierarchy* h = c.hierarchy;
    const int top = h ? h->levels() - 1 : 0;
    for (int r = 0; r < c.size; ++r) {
        if (r == root) continue;
        const bool sameNode = !h || h->isTrivial() || h->groupOf(top, r) == h->groupOf(top, root);
        (sameNode ? local : remote).push_back(r);
    }
    remote.insert(remote.end(), local.begin(), local.end());
    return remote;
}

// Both directions: the root posts one transfer per other rank, the others one each.
Schedule directRooted(const CollCall& c, bool toRoot) {
    const RootedBlocks rb(c, toRoot);
    const int root = c.args.root;
    ScheduleBuilder b(toRoot ? "direct-gather" : "direct-scatter");
    if (rb.blockBytes == 0) return b.finish();
    if (!rb.isRoot) {
        b.transfer(toRoot, root, rb.own.buf, rb.own.type, {}, 0);
        return b.finish();
    }
    for (int r : peersRemoteFirst(c, root)) {
        const Block blk = rb.rootBlockOf(r);
        b.transfer(!toRoot, r, blk.buf, blk.type, {}, 0);
    }
    if (!rb.inPlace) rb.moveOwn(b, root);
    return b.finish();
}
}  // namespace

Schedule directGather(const CollCall& c) { return directRooted(c, true); }

Schedule directScatter(const CollCall& c) { return directRooted(c, false); }

}  // namespace hieragg::recipes
