// The rendezvous is paid once per dependent hop, not once per sibling (aggtree/HopPrice.hpp):
// the tree model's prices against closed forms worked out by hand from the inputs (a slow
// emulated network: alpha 178.5 us, theta 16.5 us, beta 8.74 ns/B, a 792.7 us rendezvous
// from 64 KiB on).
#include <gtest/gtest.h>

#include <optional>

#include "hieragg/aggtree/BlockKnomialArrival.hpp"
#include "hieragg/algorithms/MemberTree.hpp"
#include "model/StageLoad.hpp"
#include "model/TreeModel.hpp"

using namespace hieragg;
using namespace hieragg::hier;

namespace {

LinkCost slowNetwork() {
    LinkCost l;
    l.alpha_us = 178.5;
    l.theta_us = 16.5;
    l.beta_us_per_byte = 0.00874;
    l.gamma_us_per_byte = 0.0;
    l.eager_bytes = 65536;
    l.rendezvous_us = 792.7;
    return l;
}

model::Load bcastOf(double bytes) {
    model::Load ld{model::Shape::Bcast};
    ld.bytes = bytes;
    return ld;
}

// One 64 KiB message occupies the link 16.5 + 65,536 x 0.00874 = 589.28464 us.
constexpr double kOccupancy = 589.28464;

}  // namespace

TEST(RendezvousHop, SplitsTheHandshakeFromTheOccupancy) {
    const aggtree::HopPrice hop = model::hopOf(slowNetwork(), bcastOf(65536), 65536);
    EXPECT_EQ(hop.alpha, 178.5);
    EXPECT_EQ(hop.handshake, 792.7);
    EXPECT_NEAR(hop.occupancy, kOccupancy, 1e-9);
    // One byte below the eager limit: no handshake, 16.5 + 65,535 x 0.00874 = 589.2759.
    const aggtree::HopPrice eager = model::hopOf(slowNetwork(), bcastOf(65535), 65535);
    EXPECT_EQ(eager.handshake, 0.0);
    EXPECT_NEAR(eager.occupancy, 589.2759, 1e-9);
}

// A k-ary tree of depth 1 (k = 3, 4 members): the root's third child arrives at
// alpha + R + 3 x occupancy = 178.5 + 792.7 + 1,767.85392 = 2,739.05392 us, not at
// alpha + 3 x (occupancy + R) = 4,324.45392 us (the rendezvous per sibling).
TEST(RendezvousHop, OnceForARootsSiblings) {
    const model::Load ld = bcastOf(65536);
    const aggtree::HopPrice hop = model::hopOf(slowNetwork(), ld, 65536);
    EXPECT_NEAR(model::exactShapeUs(TreeShape::kary(3), 4, ld, hop), 2739.05392, 1e-9);
    EXPECT_NEAR(model::exactTreeUs(TreeShape::kary(3).build(4, 0), ld, hop), 2739.05392, 1e-9);
    // The same tree by the k-nomial numbering (k = 3 over 4: the root's children 1, 2, 3).
    EXPECT_NEAR(model::exactShapeUs(TreeShape::knomial(3), 4, ld, hop), 2739.05392, 1e-9);
}

// A chain of 3 dependent hops pays the rendezvous 3 times:
// 3 x (178.5 + 792.7 + 589.28464) = 4,681.45392 us.
TEST(RendezvousHop, OncePerHopOfAChain) {
    const model::Load ld = bcastOf(65536);
    const aggtree::HopPrice hop = model::hopOf(slowNetwork(), ld, 65536);
    EXPECT_NEAR(model::exactShapeUs(TreeShape::chain(), 4, ld, hop), 4681.45392, 1e-9);
}

// The whole-tree model on equal blocks: 4 nodes of 1 rank, k = 3, every edge on the
// network: the root's three children, as the k-ary tree above.
TEST(RendezvousHop, OnceForSiblingsOfTheWholeTree) {
    const model::Load ld = bcastOf(65536);
    const aggtree::HopPrice net = model::hopOf(slowNetwork(), ld, 65536), node{7.68, 0.0, 1.0};
    const std::optional<double> latest = aggtree::blockKnomialLatestArrival({1, 4}, 3, {node, net});
    ASSERT_TRUE(latest.has_value());
    EXPECT_NEAR(*latest, 2739.05392, 1e-9);
}

// Pulses of a reduction stream behind the first with the link's occupancy alone; each
// window of kPulseWindow = 8 pulses is a dependent round trip and pays one handshake.
// k-ary k = 3 over 4, 64 KiB pulses, busiest node 3 children, single pulse 2,739.05392:
//   4 pulses (one window): 2,739.05392 + 3 x 3 x 589.28464 = 8,042.61568;
//   17 pulses (3 windows): streamed 2,739.05392 + 16 x 3 x 589.28464 = 31,024.71664,
//   windowed 2,739.05392 + 2 x (2 x 178.5 + 792.7 + 8 x 3 x 589.28464) = 33,324.11664.
TEST(RendezvousHop, OncePerPulseWindow) {
    model::Load ld{model::Shape::Reduce};
    ld.bytes = 65536;
    ld.pulseBytes = 65536;
    ld.pulses = 4;
    ld.elemBytes = 8;
    const aggtree::HopPrice hop = model::hopOf(slowNetwork(), ld, 65536);
    EXPECT_NEAR(model::exactShapeUs(TreeShape::kary(3), 4, ld, hop), 8042.61568, 1e-8);
    ld.pulses = 17;
    EXPECT_NEAR(model::exactShapeUs(TreeShape::kary(3), 4, ld, hop), 33324.11664, 1e-8);
}
