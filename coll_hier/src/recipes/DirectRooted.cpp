#include "DirectRooted.hpp"

#include <vector>

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
}  // namespace

Schedule directGather(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b("direct-gather");
    const bool isRoot = c.rank == a.root;
    const bool inPlace = isRoot && a.in_place;
    // Every rank sends the same signature, so all agree on the block size.
    const size_t blockBytes = inPlace ? a.rcount * c.rtype.size : a.scount * c.stype.size;
    if (blockBytes == 0) return b.finish();
    if (!isRoot) {
        b.send(a.root, {kSendBuf, 0}, {kSendType, a.scount}, {}, 0);
        return b.finish();
    }
    const ptrdiff_t rblock = static_cast<ptrdiff_t>(a.rcount) * c.rtype.extent;
    for (int r : peersRemoteFirst(c, a.root)) b.recv(r, {kRecvBuf, r * rblock}, {kRecvType, a.rcount}, {}, 0);
    if (!inPlace) b.copy({kSendBuf, 0}, {kSendType, a.scount}, {kRecvBuf, a.root * rblock}, {kRecvType, a.rcount});
    return b.finish();
}

Schedule directScatter(const CollCall& c) {
    const auto& a = c.args;
    ScheduleBuilder b("direct-scatter");
    const bool isRoot = c.rank == a.root;
    const bool inPlace = isRoot && a.in_place;
    const size_t blockBytes = isRoot ? a.scount * c.stype.size : a.rcount * c.rtype.size;
    if (blockBytes == 0) return b.finish();
    if (!isRoot) {
        b.recv(a.root, {kRecvBuf, 0}, {kRecvType, a.rcount}, {}, 0);
        return b.finish();
    }
    const ptrdiff_t sblock = static_cast<ptrdiff_t>(a.scount) * c.stype.extent;
    for (int r : peersRemoteFirst(c, a.root)) b.send(r, {kSendBuf, r * sblock}, {kSendType, a.scount}, {}, 0);
    if (!inPlace) b.copy({kSendBuf, a.root * sblock}, {kSendType, a.scount}, {kRecvBuf, 0}, {kRecvType, a.rcount});
    return b.finish();
}

}  // namespace hieragg::recipes
