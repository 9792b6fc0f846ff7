// The pipeline model (model/PipelineModel.hpp) takes a measured rendezvous as the tree model
// does (aggtree/HopPrice.hpp): once per hop in the first fragment's arrival, not in the
// stream's per-fragment stage, where kFragmentWindow fragments in flight overlap their
// handshakes with each other's bytes. Closed forms worked out by hand from the inputs: a
// fast-profile job's measured links (network alpha 75.9 us, beta 1.98 ns/B, eager limit 64
// KiB; node alpha 23.33 us, theta 1.97 us, beta 0.59 ns/B, a 230.42 us rendezvous from 4 KiB
// on), a 4 MiB bcast in 128 fragments of 32 KiB over 2 nodes of 2 ranks.
#include <gtest/gtest.h>

#include <vector>

#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/PipelineTree.hpp"
#include "model/PipelineModel.hpp"

using namespace hieragg;
using namespace hieragg::hier;

namespace {

CostParams fastLinks() {
    CostParams p = CostParams::defaults();
    LinkCost& net = p.link[kLinkNetwork];
    net.alpha_us = 75.9;
    net.theta_us = 0.2;
    net.beta_us_per_byte = 0.00198;
    net.eager_bytes = 65536;
    net.rendezvous_us = 183.5;
    LinkCost& node = p.link[kLinkNode];
    node.alpha_us = 23.33;
    node.theta_us = 1.97;
    node.beta_us_per_byte = 0.00059;
    node.eager_bytes = 4096;
    node.rendezvous_us = 230.42;
    return p;
}

model::Load bcastOf(double bytes) {
    model::Load ld{model::Shape::Bcast};
    ld.bytes = bytes;
    return ld;
}

constexpr double kFragment = 32768;
// Occupancies of one 32 KiB fragment: network 0.2 + 32,768 x 0.00198 = 65.08064 us (below its
// 64 KiB eager limit: no handshake); node 1.97 + 32,768 x 0.00059 = 21.30312 us (past its 4 KiB
// limit: a 230.42 us handshake).
constexpr double kNetOccupancy = 65.08064, kNodeOccupancy = 21.30312;

}  // namespace

// The stage is the start-up or the bytes, whichever is longer; the handshake is in neither:
// node max(23.33 + 1.97, 21.30312) = 25.3 us, not 21.30312 + 230.42 = 251.72312 us.
TEST(PipelineRendezvous, NotChargedPerFragment) {
    const CostParams p = fastLinks();
    EXPECT_NEAR(model::occupancyUs(p.link[kLinkNode], bcastOf(4194304), kFragment), kNodeOccupancy, 1e-9);
    EXPECT_NEAR(model::occupancyUs(p.link[kLinkNetwork], bcastOf(4194304), kFragment), kNetOccupancy, 1e-9);
    EXPECT_NEAR(model::fragmentUs(p.link[kLinkNode], bcastOf(4194304), kFragment), 25.3, 1e-9);
    EXPECT_NEAR(model::fragmentUs(p.link[kLinkNetwork], bcastOf(4194304), kFragment), 76.1, 1e-9);
}

// 2 nodes x 2 ranks, leaders 0 -> 2, each leader's node child after its leader child (TreeBcast
// serves the last child first). Arrivals: rank 2 at 75.9 + 65.08064 = 140.98064; rank 1 (after
// rank 2's fragment) at 23.33 + 230.42 + 65.08064 + 21.30312 = 340.13376; rank 3 at
// 140.98064 + 23.33 + 230.42 + 21.30312 = 416.03376 (the fill: each node hop pays the handshake
// once). Stage: rank 0's busiest link, the network's 76.1. T = 416.03376 + 127 x 76.1 =
// 10,080.73376 us (per fragment, the handshake made it 416.03376 + 127 x 251.72312 = 32,385.87 us;
// the job whose links these are measured 10.9 ms for hier_pipeline on 2 x 4 round robin).
TEST(PipelineRendezvous, OncePerHopInTheFill) {
    const CostParams p = fastLinks();
    const model::Load ld = bcastOf(4194304);
    const std::vector<int> links = {kLinkNode, kLinkNetwork};
    const model::PipelineTimes block =
        model::blockPipelineTimes({2, 2}, TreeShape::chain(), TreeShape::chain(), links, p, ld, kFragment);
    EXPECT_NEAR(block.fill, 416.03376, 1e-9);
    EXPECT_NEAR(block.stage, 76.1, 1e-9);
    double stage = 0;
    EXPECT_NEAR(model::pipelineFromTimesUs(block, ld, kFragment, &stage), 10080.73376, 1e-8);
    EXPECT_NEAR(stage, 76.1, 1e-9);
    // The tree built and priced vertex by vertex: the same doubles.
    const Hierarchy h = Hierarchy::fromKeys(4, std::vector<std::vector<int64_t>>{{0, 0, 1, 1}});
    const MemberTree t = pipelineTree(h, 0, TreeShape::chain(), TreeShape::chain());
    const model::PipelineTimes built = model::pipelineTimes(t, h, links, p, ld, kFragment);
    EXPECT_EQ(built.fill, block.fill);
    EXPECT_EQ(built.stage, block.stage);
}
