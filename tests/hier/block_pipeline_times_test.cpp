// blockPipelineTimes against the tree it stands for: pipelineTree(h, 0, chain, inner) built
// and priced vertex by vertex (pipelineTimes), on hierarchies of equal blocks of
// consecutive ranks, every inner shape the hier_pipeline rows price, bcast, reduce and
// allreduce loads, several fragment sizes. Equal as doubles: the chooser compares them.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"
#include "hieragg/hier/PipelineTree.hpp"
#include "model/PipelineModel.hpp"

using namespace hieragg;
using namespace hieragg::hier;

namespace {

// Level f's group of rank r is r / (counts[0] x .. x counts[f]); the last count is the
// number of outermost groups.
Hierarchy blockHierarchy(const std::vector<int>& counts) {
    const int n = std::accumulate(counts.begin(), counts.end(), 1, std::multiplies<int>());
    std::vector<std::vector<int64_t>> keys;
    int size = 1;
    for (size_t f = 0; f + 1 < counts.size(); ++f) {
        size *= counts[f];
        keys.emplace_back(n);
        for (int r = 0; r < n; ++r) keys.back()[r] = r / size;
    }
    return keys.empty() ? Hierarchy::flat(n) : Hierarchy::fromKeys(n, keys);
}

// Every link class priced differently, with values of no special form.
CostParams unevenLinks() {
    CostParams p = CostParams::defaults();
    const double alpha[] = {0.31, 0.83, 47.9, 113.7}, beta[] = {0.00011, 0.00037, 0.0081, 0.0123};
    const double theta[] = {0.07, 0.19, 1.3, 2.9}, gamma[] = {0.00023, 0.00029, 0.00031, 0.00041};
    for (int i = 0; i < kLinkClassCount; ++i) {
        p.link[i].alpha_us = alpha[i];
        p.link[i].beta_us_per_byte = beta[i];
        p.link[i].theta_us = theta[i];
        p.link[i].gamma_us_per_byte = gamma[i];
    }
    return p;
}

std::vector<int> linksFor(size_t fields) {
    switch (fields) {
    case 1: return {kLinkNetwork};
    case 2: return {kLinkNode, kLinkNetwork};
    case 3: return {kLinkNuma, kLinkNode, kLinkNetwork};
    default: {
        std::vector<int> l = {kLinkNuma, kLinkNode};
        while (l.size() + 1 < fields) l.push_back(kLinkSwitch);
        l.push_back(kLinkNetwork);
        return l;
    }
    }
}

std::string describe(const std::vector<int>& counts, const TreeShape& inner, model::Shape shape, double c) {
    std::string s = "counts {";
    for (int m : counts) s += std::to_string(m) + " ";
    return s + "} inner " + inner.name() + " k " + std::to_string(inner.k) + " shape " +
           std::to_string(static_cast<int>(shape)) + " fragment " + std::to_string(c);
}

}  // namespace

TEST(BlockPipelineTimes, EqualTheBuiltTreeOverASweep) {
    const std::vector<std::vector<int>> shapes = {{1},     {6},        {1, 9},     {7, 1},    {4, 3},
                                                  {3, 4},  {32, 8},    {5, 13},    {3, 5, 2}, {16, 4, 4},
                                                  {2, 1, 6}, {2, 2, 2, 2}, {3, 1, 4, 2}};
    const CostParams p = unevenLinks();
    int compared = 0;
    for (const std::vector<int>& counts : shapes) {
        const Hierarchy h = blockHierarchy(counts);
        // One count: Hierarchy::flat, one level of single ranks ({1, n}).
        const std::vector<int> blocks = equalBlockCounts(h).value_or(std::vector<int>{});
        ASSERT_EQ(blocks, (counts.size() > 1 ? counts : std::vector<int>{1, counts[0]}));
        const std::vector<int> links = linksFor(blocks.size());
        for (const TreeShape inner : {TreeShape::knomial(2), TreeShape::knomial(3), TreeShape::knomial(4),
                                      TreeShape::chain()}) {
            const MemberTree t = pipelineTree(h, 0, TreeShape::chain(), inner);
            for (const model::Shape shape : {model::Shape::Bcast, model::Shape::Reduce, model::Shape::Allreduce}) {
                model::Load ld{shape};
                ld.bytes = 1 << 20;
                ld.pulseBytes = 1 << 16;
                ld.elemBytes = 8;
                for (const double c : {256.0, 8192.0, 131072.0, 1048576.0}) {
                    const model::PipelineTimes built = model::pipelineTimes(t, h, links, p, ld, c);
                    const model::PipelineTimes closed =
                        model::blockPipelineTimes(blocks, TreeShape::chain(), inner, links, p, ld, c);
                    const std::string what = describe(blocks, inner, shape, c);
                    EXPECT_EQ(closed.fill, built.fill) << what;
                    EXPECT_EQ(closed.stage, built.stage) << what;
                    double s1 = -1, s2 = -2;
                    EXPECT_EQ(model::pipelineFromTimesUs(closed, ld, c, &s1), model::pipelineUs(t, h, links, p, ld, c, &s2))
                        << what;
                    EXPECT_EQ(s1, s2) << what;
                    ++compared;
                }
            }
        }
    }
    EXPECT_EQ(compared, static_cast<int>(shapes.size()) * 4 * 3 * 4);
}

// The pipeline model in closed form on two nodes of two ranks (leaders in a chain, a chain
// below each): the root serves its leader child (network) first, then its node child. Each
// fragment is a message of its own, so per child the stage charges the longer of its
// start-up (alpha + theta) and its bytes (theta + c (beta + gamma)): small fragments are
// bound by the start-up, large ones by the bytes. The root's two children are over two
// links (the wire and the node's memory), which work at once: the stage is the longer of
// the two, not their sum. The fill charges each edge's alpha once. 4 and 9 fragments: the
// window of 8 slides, so the 9th fragment adds a stage and no round trip (2 alpha).
TEST(BlockPipelineTimes, StageChargesEachFragmentTheLongerOfStartUpAndBytes) {
    const CostParams p = unevenLinks();
    const LinkCost& node = p.link[kLinkNode];
    const LinkCost& net = p.link[kLinkNetwork];
    const std::vector<int> counts = {2, 2}, links = {kLinkNode, kLinkNetwork};
    const Hierarchy h = blockHierarchy(counts);
    const MemberTree t = pipelineTree(h, 0, TreeShape::chain(), TreeShape::chain());
    for (const double c : {256.0, 1048576.0})
    for (const double fragments : {4.0, 9.0}) {
        model::Load ld{model::Shape::Reduce};
        ld.bytes = fragments * c;
        ld.pulseBytes = c;
        ld.elemBytes = 8;
        const double pNode = node.theta_us + c * (node.beta_us_per_byte + node.gamma_us_per_byte);
        const double pNet = net.theta_us + c * (net.beta_us_per_byte + net.gamma_us_per_byte);
        const double stage =
            std::max(std::max(node.alpha_us + node.theta_us, pNode), std::max(net.alpha_us + net.theta_us, pNet));
        // Leader 2 first (alpha + its packet), then rank 1 after both packets; rank 3 below 2.
        const double fill = std::max(node.alpha_us + pNet + pNode, net.alpha_us + pNet + node.alpha_us + pNode);
        const std::string what = "fragment " + std::to_string(c) + " x " + std::to_string(fragments);
        if (c == 256.0) {
            EXPECT_GT(net.alpha_us + net.theta_us, pNet) << what;  // the start-up binds
        } else {
            EXPECT_LT(net.alpha_us + net.theta_us, pNet) << what;  // the bytes bind
        }
        for (const model::PipelineTimes& got :
             {model::pipelineTimes(t, h, links, p, ld, c),
              model::blockPipelineTimes(counts, TreeShape::chain(), TreeShape::chain(), links, p, ld, c)}) {
            EXPECT_DOUBLE_EQ(got.stage, stage) << what;
            EXPECT_DOUBLE_EQ(got.fill, fill) << what;
            EXPECT_DOUBLE_EQ(model::pipelineFromTimesUs(got, ld, c, nullptr), fill + (fragments - 1) * stage) << what;
        }
    }
}
