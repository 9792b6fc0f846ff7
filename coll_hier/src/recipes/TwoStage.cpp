// The two-stage plan of the v-variants (TwoStage.hpp): which calls take it, the
// block size up to which blocks go through the leaders, and the size stage.
#include "hieragg/hier/TwoStage.hpp"

#include <algorithm>
#include <limits>

#include "PeerBlocks.hpp"
#include "hieragg/ScheduleBuilder.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/WholeTree.hpp"

namespace hieragg::recipes {

namespace {
// Stage 1 talks on its own channel: a persistent request's two stages share their tags.
constexpr uint32_t kSizeChannel = stageChannel(5);

hier::SizeStage sizeStageOf(const CollCall& c) { return hier::factsOf(c.args.kind).sizeStage; }
bool rooted(const CollCall& c) {
    return sizeStageOf(c) == hier::SizeStage::SendBlock || sizeStageOf(c) == hier::SizeStage::RecvBlock;
}
bool exchange(const CollCall& c) { return sizeStageOf(c) == hier::SizeStage::PeerRows; }

// uint64 words each member hands its leader in stage 1.
size_t wordsPerMember(const CollCall& c) { return exchange(c) ? 2 * static_cast<size_t>(c.size) : 1; }

// The group of `rank` at the aggregation level, or null when it takes no part in stage 1
// (gatherv/scatterv: the root's group talks to the root directly).
const std::vector<int>* aggregatingGroup(const CollCall& c, int rank) {
    const int level = aggregationLevel(c);
    if (level < 0) return nullptr;
    const hier::Hierarchy& h = *c.hierarchy;
    const int g = h.groupOf(level, rank);
    if (rooted(c) && h.groupOf(level, c.args.root) == g) return nullptr;
    return &h.groupMembers(level, g);
}
}  // namespace

int aggregationLevel(const CollCall& c) {
    if (!hier::isDecomposed(c)) return -1;
    const hier::Hierarchy& h = *c.hierarchy;
    for (int l = h.levels() - 1; l >= 0; --l)
        if (h.groupCount(l) > 1) return l;
    return -1;
}

size_t leaderBlockLimit(const CollCall& c) {
    const int level = aggregationLevel(c);
    if (level < 0) return 0;
    const hier::CostParams p = c.costs ? *c.costs : hier::CostParams::defaults();
    const std::vector<int> links = hier::linksOf(c);
    const hier::LinkCost& in = p.link[links.front()];
    const hier::LinkCost& net = p.link[links[std::min<size_t>(level + 1, links.size() - 1)]];
    // Through a leader a block saves one start-up across groups (the receiver's per-message
    // work included) and pays, per byte, one hop inside the group and one copy at the far
    // end (gatherv/scatterv); alltoallv/w: the member's pack, a hop to the leader, the
    // leader's transpose and concatenation, a hop to the member and its unpack.
    const double saved = net.alpha_us + net.theta_us;
    const double perByte = (exchange(c) ? 6.0 : 2.0) * in.beta_us_per_byte;
    double limit = perByte > 0 ? saved / perByte : static_cast<double>(std::numeric_limits<uint32_t>::max());
    if (c.maxTempBytes > 0) {
        // Worst temporaries over all ranks at `limit` bytes per aggregated block: the root
        // holds every other group's blocks (P); an alltoallv leader holds its group's rows
        // four times over (rows, to and from the leaders, to the members): 4 m P.
        const hier::Hierarchy& h = *c.hierarchy;
        size_t m = 1;
        for (int g = 0; g < h.groupCount(level); ++g) m = std::max(m, h.groupMembers(level, g).size());
        const double blocks = exchange(c) ? 4.0 * m * c.size : static_cast<double>(c.size);
        limit = std::min(limit, static_cast<double>(c.maxTempBytes) / blocks);
    }
    return static_cast<size_t>(std::max(0.0, limit));
}

bool twoStage(const CollCall& c) {
    if (!rooted(c) && !exchange(c)) return false;
    const hier::AlgorithmInfo* row = hier::algorithmByName(c.args.kind, "hierarchical");
    if (!row || !hier::unmetNeed(*row, c).empty()) return false;
    const int level = aggregationLevel(c);
    if (level < 0) return false;
    if (c.algorithm != 0) return hier::algorithmByValue(c.args.kind, c.algorithm) == row;
    // Auto: only where a leader combines blocks (a group of two or more that does not
    // talk to the root directly) and the model lets blocks of some size through it.
    const hier::Hierarchy& h = *c.hierarchy;
    bool combines = false;
    for (int g = 0; g < h.groupCount(level) && !combines; ++g) {
        const std::vector<int>& m = h.groupMembers(level, g);
        combines = m.size() > 1 && !(rooted(c) && h.groupOf(level, c.args.root) == g);
    }
    return combines && leaderBlockLimit(c) > 0;
}

RootRoutes rootRoutes(const hier::Hierarchy& h, int level, int root, const std::vector<size_t>& bytes,
                      size_t limit) {
    RootRoutes routes;
    const int rootGroup = h.groupOf(level, root);
    for (int g = 0; g < h.groupCount(level); ++g) {
        const std::vector<int>& members = h.groupMembers(level, g);
        RootGroupRoute route;
        route.leader = members.front();
        for (int r : members) {
            if (r == root || bytes[r] == 0) continue;
            // A group of one has nothing to combine: its block goes direct.
            if (g == rootGroup || bytes[r] > limit || members.size() == 1) {
                route.direct.push_back(r);
            } else {
                route.through.push_back(r);
                route.bytes += bytes[r];
            }
        }
        routes.total += route.bytes;
        routes.groups.push_back(std::move(route));
    }
    return routes;
}

std::vector<uint64_t> sizeStageInput(const CollCall& c) {
    const auto& a = c.args;
    switch (sizeStageOf(c)) {
    case hier::SizeStage::SendBlock: return {c.rank == a.root && a.in_place ? 0 : a.scount * c.stype.size};
    case hier::SizeStage::RecvBlock: return {a.rbuf ? a.rcount * c.rtype.size : 0};
    case hier::SizeStage::PeerRows: {
        const PeerBlocks pb = a.kind == HIERAGG_ALLTOALLV ? alltoallvBlocks(c) : alltoallwBlocks(c);
        std::vector<uint64_t> row(2 * static_cast<size_t>(c.size));
        for (int r = 0; r < c.size; ++r) {
            row[r] = pb.sendBytes(r);
            row[c.size + r] = pb.recvBytes(r);
        }
        return row;
    }
    case hier::SizeStage::None: break;
    }
    return {};
}

size_t sizeStageLearned(const CollCall& c) {
    const std::vector<int>* g = aggregatingGroup(c, c.rank);
    return g && g->front() == c.rank ? g->size() * wordsPerMember(c) : 0;
}

Schedule sizeStage(const CollCall& c) {
    ScheduleBuilder b("sizes");
    const std::vector<int>* g = aggregatingGroup(c, c.rank);
    if (!g || g->size() < 2) return b.finish();
    const size_t bytes = wordsPerMember(c) * sizeof(uint64_t);
    const int leader = g->front();
    if (c.rank != leader) {
        b.send(leader, {kSendBuf, 0}, {kPackedType, bytes}, {}, kSizeChannel);
        return b.finish();
    }
    // Member i's words land at i * words; the leader's own slot stays unused.
    for (size_t i = 1; i < g->size(); ++i)
        b.recv((*g)[i], {kRecvBuf, static_cast<ptrdiff_t>(i * bytes)}, {kPackedType, bytes}, {}, kSizeChannel);
    return b.finish();
}

}  // namespace hieragg::recipes
