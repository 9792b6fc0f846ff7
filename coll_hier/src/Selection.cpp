#include "hieragg/hier/Selection.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

#include "hieragg/aggtree/CostModel.hpp"
#include "hieragg/aggtree/HierarchicalKnomialTree.hpp"
#include "hieragg/algorithms/ButterflyAllreduce.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/HierarchyAdapter.hpp"
#include "hieragg/hier/SwitchTree.hpp"
#include "hieragg/hier/PipelineTree.hpp"
#include "recipes/MultiLeaderAllgather.hpp"
#include "recipes/PipelinedTree.hpp"
#include "hieragg/Transport.hpp"
#include "recipes/ReductionPulses.hpp"
#include "model/PipelineModel.hpp"
#include "model/SharedCoresModel.hpp"
#include "model/SliceModel.hpp"
#include "model/StageLoad.hpp"
#include "model/TreeModel.hpp"
#include "model/WhyText.hpp"

namespace hieragg::hier {

using namespace model;  // the named models (coll_hier/src/model/)

namespace {

// Predict `a` on a stage of n members over link `l`; fills k / segment / why.
StageChoice predict(const AlgorithmInfo& a, const Load& ld, const LinkCost& l, int n, double epsilon) {
    StageChoice s;
    s.algo = &a;
    s.members = n;
    if (n <= 1) return s;
    const double alpha = l.alpha_us;
    const double unit = ld.shape == Shape::Reduce || ld.shape == Shape::Allreduce ? ld.pulseBytes : ld.bytes;
    if (a.emitter == Emitter::Dissemination) {
        // Every member sends and receives in each round: an exchange round, not a lone message.
        s.predUs = std::ceil(std::log2(n)) * exchangeRoundUs(l);
        s.why = "ceil(log2 " + std::to_string(n) + ") rounds of " + fmt("%.3g", exchangeRoundUs(l)) + " us";
        return s;
    }
    if (a.emitter != Emitter::Tree && a.emitter != Emitter::FlatComposition) return s;
    switch (a.shape) {
    case TreeShape::Kind::Knomial: {
        if (ld.sharedCores > 0) return sharedCoresTree(a, ld, l, n);
        // Gather/scatter move every block through the root whatever k is: k only trades latency.
        const double b = ld.shape == Shape::Gather ? l.theta_us : packetUs(l, ld, unit);
        // SPEC 3.2: k* from a/b and the band of widths within epsilon of F(k*); the exact
        // tree model (real heights, children served one after the other) picks inside it.
        const aggtree::WidthBand band = aggtree::widthBand(alpha, std::max(b, 1e-9), n, epsilon);
        double best = kInf;
        int bestK = 2;
        for (int k = std::max(2, band.k_min); k <= std::max(2, band.k_max); ++k) {
            const double t = exactTreeUs(TreeShape::knomial(k).build(n, 0), ld, alpha, b);
            if (t < best) best = t, bestK = k;
        }
        s.shape = TreeShape::knomial(bestK);
        s.predUs = best + (ld.shape == Shape::Gather ? ld.bytes * l.beta_us_per_byte : 0.0);
        s.why = "k*=" + fmt("%.2f", aggtree::optimalRealK(alpha, std::max(b, 1e-9))) + " from a/b=" +
                fmt("%.3g", alpha) + "/" + fmt("%.3g", b) + ", band [" + std::to_string(band.k_min) + "," +
                std::to_string(band.k_max) + "]";
        return s;
    }
    case TreeShape::Kind::Kary: {
        if (ld.sharedCores > 0) return sharedCoresTree(a, ld, l, n);
        const double b = packetUs(l, ld, unit);
        double best = kInf;
        int bestK = 2;
        for (int k = 2; k <= std::min(kMaxRadix, std::max(2, n - 1)); ++k) {
            const double t = exactTreeUs(TreeShape::kary(k).build(n, 0), ld, alpha, b);
            if (t < best) best = t, bestK = k;
        }
        s.shape = TreeShape::kary(bestK);
        s.predUs = best;
        s.why = "best k of 2.." + std::to_string(std::min(kMaxRadix, std::max(2, n - 1))) + " with a/b=" +
                fmt("%.3g", alpha) + "/" + fmt("%.3g", b);
        return s;
    }
    case TreeShape::Kind::Chain: {
        s.shape = TreeShape::chain();
        if (ld.shape == Shape::Bcast) {
            // SPEC 3.5: t = (m/c + n - 2)(t_s + c/bw), best c = sqrt(m t_s bw / (n - 2)).
            const double ts = alpha + l.theta_us;
            const double bw = l.beta_us_per_byte > 0 ? 1.0 / l.beta_us_per_byte : 1e12;
            double c = TreeBcast::optimalChainSegmentBytes(ld.bytes, n, ts, bw);
            c = std::min(std::max(c, static_cast<double>(std::max<size_t>(ld.elemBytes, 256))), std::max(ld.bytes, 1.0));
            if (ld.segmentCap > 0) c = std::max(std::min(c, ld.segmentCap), static_cast<double>(ld.elemBytes));
            c = std::max(c, std::ceil(ld.bytes / TreeBcast::kMaxSegments));  // what the emitter will cut
            s.segmentBytes = static_cast<size_t>(c);
            const double m = std::max(ld.bytes, 1.0);
            s.predUs = (std::ceil(m / c) + n - 2) * (ts + c * l.beta_us_per_byte);
            s.why = "c*=" + fmt("%.0f", c) + " B from m=" + fmt("%.0f", ld.bytes) + " t_s=" + fmt("%.3g", ts) +
                    " bw=" + fmt("%.4g", bw) + " B/us";
            if (ld.sharedCores > 0) {
                // Every rank but the root handles each segment and copies the whole message.
                const double work = (n - 1) * (std::ceil(m / c) * l.theta_us + ld.bytes * l.beta_us_per_byte);
                s.predUs = sharedCoresBcastUs(s.predUs, work, ld);
                s.why += ", " + std::to_string(ld.sharedCores) + " cores";
            }
        } else {
            const double b = packetUs(l, ld, unit);
            s.predUs = pulsedUs((n - 1) * (alpha + b), ld, alpha, b, 1.0) * (ld.shape == Shape::Allreduce ? 2 : 1);
            s.why = fmt("%.0f", ld.pulses) + " pulses down a chain of " + std::to_string(n);
            if (ld.sharedCores > 0) {
                s.predUs = sharedCoresReduceUs(ld, l, n, 1.0, b, s.predUs, reduceLoneMinUs(ld, l, n, b));
                s.why += ", " + std::to_string(ld.sharedCores) + " cores, back-to-back calls where they bound it";
            }
        }
        return s;
    }
    }
    return s;
}

// An offloaded leader stage (docs/offload.md), priced like the provider's software
// algorithms: barrier and allreduce are recursive doubling (ceil(log2 n) rounds, the
// whole pulse each round, pulses one after the other); bcast is a binomial scatter plus
// a ring allgather.
StageChoice predictFabric(const AlgorithmInfo& a, const Load& ld, const LinkCost& o, int n) {
    StageChoice s;
    s.algo = &a;
    s.members = n;
    if (n <= 1) return s;
    if (a.shape == TreeShape::Kind::Chain) {
        // Triggered chain (bcast): SPEC 3.5's pipelined chain where every hop is one message
        // over the provider (alpha + c beta of coll_hieragg_cost_ofi_*), c from its formula.
        s.shape = TreeShape::chain();
        const double bw = o.beta_us_per_byte > 0 ? 1.0 / o.beta_us_per_byte : 1e12;
        double c = TreeBcast::optimalChainSegmentBytes(ld.bytes, n, o.alpha_us, bw);
        c = std::min(std::max(c, static_cast<double>(kTriggeredMinSegment)), std::max(ld.bytes, 1.0));
        if (ld.segmentCap > 0) c = std::max(std::min(c, ld.segmentCap), std::min(ld.bytes, 1.0 * kTriggeredMinSegment));
        c = std::max(1.0, std::floor(std::max(c, std::ceil(ld.bytes / kTriggeredMaxSegments))));
        s.segmentBytes = static_cast<size_t>(c);
        const double m = std::max(ld.bytes, 1.0);
        s.predUs = (std::ceil(m / c) + n - 2) * (o.alpha_us + c * o.beta_us_per_byte);
        s.why = fmt("%.0f", std::ceil(m / c)) + " triggered segments of " + fmt("%.0f", c) + " B down " +
                std::to_string(n - 1) + " hops";
        return s;
    }
    const double rounds = std::ceil(std::log2(n));
    if (ld.shape == Shape::Barrier) {
        s.predUs = rounds * o.alpha_us;
        s.why = fmt("%.0f", rounds) + " offloaded rounds";
    } else if (ld.shape == Shape::Allreduce) {
        s.predUs = ld.pulses * rounds * (o.alpha_us + ld.pulseBytes * (o.beta_us_per_byte + o.gamma_us_per_byte));
        s.why = fmt("%.0f", ld.pulses) + " offloaded pulses x " + fmt("%.0f", rounds) + " rounds";
    } else {
        const double m = ld.bytes;
        s.predUs = rounds * o.alpha_us + m * o.beta_us_per_byte * (n - 1) / n +
                   (n - 1) * (o.alpha_us + m / n * o.beta_us_per_byte);
        s.why = "offloaded scatter+allgather over " + std::to_string(n);
    }
    return s;
}

// Largest space of each stage (index = level).
std::vector<int> stageSizes(const Hierarchy& h) {
    std::vector<int> out(h.levels() + 1, 1);
    for (int l = 0; l < h.levels(); ++l)
        for (int g = 0; g < h.groupCount(l); ++g) {
            out[l] = std::max(out[l], l == 0 ? static_cast<int>(h.groupMembers(0, g).size()) : 0);
        }
    // Level l >= 1 spaces: leaders of level-(l-1) groups inside one level-l group.
    for (int l = 1; l < h.levels(); ++l) {
        std::vector<int> count(h.groupCount(l), 0);
        for (int g = 0; g < h.groupCount(l - 1); ++g) ++count[h.groupOf(l, h.groupMembers(l - 1, g).front())];
        out[l] = *std::max_element(count.begin(), count.end());
    }
    out[h.levels()] = h.groupCount(h.levels() - 1);
    return out;
}

StageChoice predictWhole(const AlgorithmInfo& a, const CollCall& c, const Load& ld, const CostParams& p,
                         const std::vector<int>& links) {
    StageChoice s;
    s.algo = &a;
    s.members = c.size;
    s.link = links.back();
    const aggtree::ProcessHierarchy ph = toProcessHierarchy(*c.hierarchy);
    // Root 0 whatever the call's root: a plan is shared by every root of its signature class,
    // and must be the same on every rank (ranks see different in-place flags, for one).
    const int root = 0;
    const double unit = ld.shape == Shape::Reduce || ld.shape == Shape::Allreduce ? ld.pulseBytes : ld.bytes;
    double best = kInf;
    int bestK = 2;
    for (int k = 2; k <= std::min(kMaxRadix, std::max(2, c.size)); k = k < 16 ? k + 1 : k * 2) {
        aggtree::Tree t;
        try {
            t = aggtree::buildHierarchicalKnomialTree(ph, k, root);
        } catch (const std::overflow_error&) {
            break;  // positions exceed 2^62 (deep hierarchies, wide k): no wider k fits either
        }
        const double us = wholeTreeUs(t, *c.hierarchy, links, p, ld, k, unit);
        if (us < best) best = us, bestK = k;
    }
    s.shape = TreeShape::knomial(bestK);
    s.predUs = best;
    s.why = "min-height tree: best k of 2..16,32,64 by the per-edge model";
    return s;
}

// The type II switch tree (SwitchTree.hpp) executed by proxies, priced like the
// hierarchical tree: the same per-edge model over the rank tree the proxies form. Not
// allocated (entries, degree): algo stays null and *note says why.
StageChoice predictSwitchTree(const AlgorithmInfo& a, const CollCall& c, const Load& ld, const CostParams& p,
                              const std::vector<int>& links, std::string* note) {
    StageChoice s;
    s.members = c.size;
    s.link = links.back();
    const SwitchTree st = allocateSwitchTree(*c.hierarchy, links, c.switchEntries, c.switchDegree);
    if (!st.allocated) {
        *note = std::string("hieragg: ") + collectiveName(c.args.kind) + ": type II tree not available: " +
                st.reason + "; type I trees run";
        return s;
    }
    s.algo = &a;
    const aggtree::Tree t = st.rankTree(c.size, 0);  // root 0: plans are shared by every root
    const double unit = ld.shape == Shape::Reduce || ld.shape == Shape::Allreduce ? ld.pulseBytes : ld.bytes;
    s.predUs = wholeTreeUs(t, *c.hierarchy, links, p, ld, std::max(1, t.maxDegree()), unit);
    s.why = st.label() + "; proxies fan in up to " + std::to_string(t.maxDegree()) + " ranks, height " +
            std::to_string(t.height());
    return s;
}

StageChoice predictPipeline(const AlgorithmInfo& a, const CollCall& c, const Load& ld, const CostParams& p,
                            const std::vector<int>& links) {
    StageChoice s;
    s.algo = &a;
    s.members = c.size;
    s.link = links.back();
    const Hierarchy& h = *c.hierarchy;
    const double m = std::max(ld.bytes, 1.0);
    const double minSeg = static_cast<double>(std::max<size_t>(ld.elemBytes, 256));
    std::vector<double> cands;
    {
        const LinkCost& top = p.link[links.back()];
        const double ts = top.alpha_us + top.theta_us;
        const double bw = top.beta_us_per_byte > 0 ? 1.0 / top.beta_us_per_byte : 1e12;
        cands.push_back(TreeBcast::optimalChainSegmentBytes(m, std::max(3, h.groupCount(h.levels() - 1) + 1), ts, bw));
    }
    for (double x = minSeg; x < m; x *= 2) cands.push_back(x);
    cands.push_back(m);
    double best = kInf, bestStage = 0, bestSeg = m;
    TreeShape bestShape = TreeShape::knomial(2);
    // Below the leaders: k-nomial of radix 2..4 (short fill) or a chain (one send per
    // fragment per rank: the shortest stage).
    for (const TreeShape inner : {TreeShape::knomial(2), TreeShape::knomial(3), TreeShape::knomial(4),
                                  TreeShape::chain()}) {
        // Root 0 whatever the call's root: the plan is shared by every root of the class.
        const MemberTree t = pipelineTree(h, 0, TreeShape::chain(), inner);
        for (double x : cands) {
            x = std::min(std::max(std::floor(x), minSeg), m);
            const double cap = std::min(ld.segmentCap > 0 ? ld.segmentCap : kInf,
                                        static_cast<double>(recipes::kMaxFragmentBytes));
            x = std::max(std::min(x, cap), static_cast<double>(ld.elemBytes));
            x = std::max(std::floor(x / ld.elemBytes), 1.0) * ld.elemBytes;  // whole elements
            double stage = 0;
            const double us = pipelineUs(t, h, links, p, ld, x, &stage);
            if (us < best) best = us, bestSeg = x, bestShape = inner, bestStage = stage;
        }
    }
    s.shape = bestShape;
    s.segmentBytes = static_cast<size_t>(bestSeg);
    s.predUs = best;
    s.why = "chain of leaders, " + bestShape.name() + " below; " + fmt("%.0f", std::ceil(m / bestSeg)) + " fragments of " +
            fmt("%.0f", bestSeg) + " B, stage " + fmt("%.3g", bestStage) + " us, window " +
            std::to_string(recipes::kFragmentWindow);
    return s;
}

// Gather/scatter `direct` (DirectRooted.hpp): every block moves once, straight between its
// rank and the root, all messages posted at once: start-ups overlap, the blocks of ranks
// outside the root's node queue on its link, the others on shared memory beside them.
// Priced for the worst root (the smallest node), since the plan serves every root.
StageChoice predictDirect(const AlgorithmInfo& a, const CollCall& c, const Load& ld, const CostParams& p,
                          const std::vector<int>& links) {
    StageChoice s;
    s.algo = &a;
    s.members = c.size;
    s.link = links.back();
    const Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1, n = c.size;
    int smallest = n, largest = 1;
    for (int g = 0; g < h.groupCount(top); ++g) {
        const int m = static_cast<int>(h.groupMembers(top, g).size());
        smallest = std::min(smallest, m), largest = std::max(largest, m);
    }
    const double S = ld.bytes / std::max(n, 1), remote = n - smallest, local = largest - 1;
    const LinkCost& net = p.link[links.back()];
    const LinkCost& in = p.link[links.front()];
    // The remote blocks leave or reach the root's node together: a burst on its link.
    s.predUs = net.alpha_us + crossingUs(net, remote) + (n - 1 - remote) * net.theta_us +
               std::max(remote * S * net.beta_us_per_byte, local * S * in.beta_us_per_byte);
    s.why = fmt("%.0f", remote) + " blocks cross the root's link once, no store-and-forward";
    return s;
}

bool serves(const AlgorithmInfo& a, unsigned where) { return (a.serves & where) != 0; }

// The allreduce compositions that cut the vector into slices (SliceAllreduce.hpp).
bool slices(const AlgorithmInfo& a) {
    if (a.coll == HIERAGG_REDUCE_SCATTER || a.coll == HIERAGG_REDUCE_SCATTER_BLOCK)
        return a.emitter == Emitter::Ring || a.emitter == Emitter::LeaderRing || a.emitter == Emitter::RecursiveHalving;
    if (a.coll != HIERAGG_ALLREDUCE) return false;
    switch (a.emitter) {
    case Emitter::Ring: case Emitter::Rabenseifner: case Emitter::RecursiveDoubling:
    case Emitter::MultiLeaderRing: case Emitter::MultiLeaderRabenseifner:
        return true;
    default:
        return false;
    }
}

// reduce_scatter's `recursive_halving` row (ReduceScatter.cpp) on n ranks of one link class,
// vector of `bytes`: log2 p2 rounds, each one message of the half kept (halves of halves:
// (p2 - 1)/p2 of the vector in all), received and combined; with a fold (n not a power of
// two) the whole vector in first and one block back out. Returns {start-ups, bytes}.
std::pair<double, double> halvingReduceScatterUs(const LinkCost& l, int n, double bytes) {
    if (n <= 1) return {0, 0};
    const int p2 = butterflyCore(n);
    const double rounds = std::log2(static_cast<double>(p2)), fold = p2 == n ? 0.0 : 1.0;
    const double perByte = l.beta_us_per_byte + l.gamma_us_per_byte;
    return {(rounds + 2 * fold) * (l.alpha_us + l.theta_us),
            bytes * ((p2 - 1.0) / p2 * perByte + fold * (perByte + l.beta_us_per_byte / n))};
}

// reduce_scatter's `hierarchical` row (LeaderRingReduceScatter.hpp) on n ranks in G outermost
// groups of up to M, vector of `bytes`: pulses of a piece of every block (a node block of about
// one segment) flow through three stages that overlap across pulses, so the time is one pulse's
// latency through all of them plus (pulses - 1) times the leader's time per pulse:
//   in the group: pack + binomial reduce of the pulse vector V (ceil(log2 M) children at the leader);
//   leaders: G - 1 ring steps of one node block B, kPulseWindow pulses in flight;
//   scatter: the leader's M - 1 sends of one piece (start-ups overlap).
// The leader's own reductions and copies of the group stage do not overlap its ring (one
// progress engine does both), so per pulse they add to the slower of ring and scatter.
double leaderRingReduceScatterUs(const LinkCost& in, const LinkCost& net, int n, int G, int M, double bytes,
                                 double seg) {
    if (n <= 1 || bytes <= 0) return 0;
    const double block = bytes / n, piece = std::max(1.0, std::min(block, seg / std::max(M, 1)));
    const double pulses = std::ceil(block / piece), V = n * piece, B = M * piece;
    const double lgM = std::ceil(std::log2(std::max(M, 1)));
    const double redUnit = in.theta_us + V * (in.beta_us_per_byte + in.gamma_us_per_byte);
    const double packUs = V * in.beta_us_per_byte;
    const double inLat = packUs + lgM * (in.alpha_us + redUnit), inBusy = packUs + lgM * redUnit;
    const double ringUnit = net.theta_us + B * (net.beta_us_per_byte + net.gamma_us_per_byte);
    const double ringLat = (G - 1) * (net.alpha_us + ringUnit);
    const double ringBusy = std::max((G - 1) * ringUnit, ringLat / static_cast<double>(recipes::kPulseWindow));
    const double scatterBusy = (M - 1) * (in.theta_us + piece * in.beta_us_per_byte);
    const double scatterLat = (M > 1 ? in.alpha_us : 0.0) + scatterBusy;
    return inLat + ringLat + scatterLat + (pulses - 1) * (inBusy + std::max(ringBusy, scatterBusy));
}

// The prediction of one slice composition row for an allreduce of `bytes`.
StageChoice predictSlices(const AlgorithmInfo& a, const CollCall& c, const CostParams& p, const std::vector<int>& links,
                          double bytes) {
    StageChoice s;
    s.algo = &a;
    s.members = c.size;
    const double seg = static_cast<double>(std::max<size_t>(c.segmentBytes, 1));
    const bool hier = isDecomposed(c);
    const int n = c.size;
    // Outermost groups: G of them, sizes between S and M; x: ring hops leaving the busiest one.
    int G = 1, S = n, M = n, cross = 1;
    if (hier) {
        const Hierarchy& h = *c.hierarchy;
        const int top = h.levels() - 1;
        G = h.groupCount(top);
        S = n, M = 0;
        std::vector<int> out(G, 0);
        for (int g = 0; g < G; ++g) {
            const int m = static_cast<int>(h.groupMembers(top, g).size());
            S = std::min(S, m), M = std::max(M, m);
        }
        for (int r = 0; r < n; ++r)
            if (h.groupOf(top, r) != h.groupOf(top, (r + 1) % n)) ++out[h.groupOf(top, r)];
        cross = std::max(1, *std::max_element(out.begin(), out.end()));
    }
    const LinkCost& net = p.link[hier ? links.back() : kLinkNode];
    s.link = hier ? links.back() : kLinkNode;
    if (a.coll != HIERAGG_ALLREDUCE && a.emitter == Emitter::LeaderRing) {
        if (!hier) return s;
        s.predUs = leaderRingReduceScatterUs(p.link[links[links.size() - 2]], net, n, G, M, bytes, seg);
        s.why = std::to_string(G) + " leaders' ring of node blocks, groups of up to " + std::to_string(M);
        return s;
    }
    if (a.coll != HIERAGG_ALLREDUCE && a.emitter == Emitter::RecursiveHalving) {
        // Priced inside one node only (a pair per round, no root: the oversubscribed node's
        // alpha already holds the wait for the partner's turn); across nodes the rounds'
        // sharing of each node's link is not modelled, so there it runs only when forced.
        // Latency-bound vectors only (start-ups above the bytes' time), as tuned keeps it to
        // short messages: it holds two copies of the whole vector and does not pipeline, and
        // on 8 ranks of 2 cores at 64 KiB the trees stayed ahead of it (2026-11-23).
        const std::pair<double, double> us = halvingReduceScatterUs(net, n, bytes);
        s.predUs = hier || us.second > us.first ? kInf : us.first + us.second;
        s.why = "log2 p halving rounds, no root";
        return s;
    }
    if (a.coll != HIERAGG_ALLREDUCE) {  // reduce_scatter ring: the first half of the ring allreduce
        const double windows = std::ceil(std::max(1.0, std::ceil(bytes / (seg * n))) / recipes::kPulseWindow);
        // One node with more ranks than cores: a ring step ends when every rank has run once
        // (received, combined, sent), so it costs n / cores hand-offs in sequence, not one.
        // Measured (64 KiB, 2 cores, interleaved): ring 6.0-6.7x tuned on 8 ranks against
        // 0.8-1.9x for reduce + scatter; 1.4-2.7x on 4 ranks, where the trees were 2.5-3.3x.
        const double turns = crowdedOneNode(c, p) ? static_cast<double>(n) / p.nodeCores : 1.0;
        s.predUs = n <= 1 ? 0.0
                          : (n - 1) * (turns * net.alpha_us + net.theta_us) * windows +
                                (n - 1.0) / n * bytes * (cross * net.beta_us_per_byte + net.gamma_us_per_byte);
        s.why = "n-1 steps of 1/n, " + std::to_string(cross) + " ring hops leave the busiest node";
        if (turns > 1) s.why += ", " + fmt("%.1f", turns) + " ranks per core take turns each step";
        return s;
    }
    switch (a.emitter) {
    case Emitter::Ring:
        s.predUs = ringAllreduceUs(net, n, bytes, seg * n, cross);
        s.why = "2(n-1) steps of 1/n, " + std::to_string(cross) + " ring hops leave the busiest node";
        break;
    case Emitter::Rabenseifner:
        s.predUs = butterflyAllreduceUs(net, n, bytes, seg * butterflyCore(n), hier ? M : 1, true);
        s.why = "2 log2 p steps, " + std::to_string(hier ? M : 1) + " ranks share a link";
        break;
    case Emitter::RecursiveDoubling:
        s.predUs = butterflyAllreduceUs(net, n, bytes, seg, hier ? M : 1, false);
        s.why = "log2 p exchanges of the whole vector";
        break;
    default: {
        if (!hier) return s;
        const LinkCost& in = p.link[links[links.size() - 2]];
        const double slice = bytes / S;
        const double inner = ringAllreduceUs(in, M, static_cast<double>(M) / S * bytes, seg * M, 1);
        const double between = a.emitter == Emitter::MultiLeaderRing
                                   ? ringAllreduceUs(net, G, slice, seg, S)
                                   : butterflyAllreduceUs(net, G, slice, seg, S, true);
        s.predUs = inner + between;
        s.why = std::to_string(S) + " slices: node rings " + fmt("%.1f", inner) + " us, " + std::to_string(G) +
                " nodes " + fmt("%.1f", between) + " us";
        break;
    }
    }
    return s;
}

// Best applicable entry for one stage; `forced` wins where it serves.
StageChoice bestFor(const CollCall& c, const AlgorithmInfo* forced, unsigned where, const Load& ld,
                    const LinkCost& l, int n, int link, double epsilon, const LinkCost* offload = nullptr) {
    StageChoice best;
    best.predUs = kInf;
    for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
        if (!serves(*a, where) || a->emitter == Emitter::FlatComposition || slices(*a)) continue;
        if (!unmetNeed(*a, c).empty()) continue;
        // Non-commutative reductions combine in rank order: only in-order trees.
        const bool reduces = ld.shape == Shape::Reduce || ld.shape == Shape::Allreduce;
        if (reduces && !c.args.op_commutative && a->emitter == Emitter::Tree && !TreeShape{a->shape, 2}.inOrder())
            continue;
        if (forced && a != forced && serves(*forced, where) && forced->emitter != Emitter::FlatComposition)
            continue;
        if (a->emitter == Emitter::Fabric && !offload) continue;
        StageChoice s = a->emitter == Emitter::Fabric ? predictFabric(*a, ld, *offload, n)
                                                      : predict(*a, ld, l, n, epsilon);
        if (a->emitter == Emitter::Fabric && c.offload && c.offload->preferred) {
            s.why += "; coll_hieragg_offload=ofi";
            best = s;
            break;
        }
        if (best.algo == nullptr || s.predUs < best.predUs) best = s;
    }
    if (forced && best.algo == forced) best.why = "forced; " + best.why;
    best.link = link;
    best.members = n;
    if (best.algo == nullptr) best.predUs = 0;
    return best;
}

}  // namespace

int sizeClass(size_t bytes) {
    int c = 0;
    while (bytes > 1) bytes >>= 1, ++c;
    return c;
}

namespace {
// The bytes of one exchange round of recursive doubling or Bruck in which every rank sends
// `bytes` to its partner: where x of the busiest node's ranks have theirs on another node,
// the x messages queue on its link; where none does, the round stays in the node. (Before,
// every round was priced as crossing: Bruck on 2 x 4 round robin, whose rounds at distance
// 2 and 4 stay home, looked six times slower than it runs.)
double exchangeRoundBytesUs(const LinkCost& net, const LinkCost& in, int x, double bytes) {
    return x > 0 ? std::max(x * bytes * net.beta_us_per_byte, bytes * in.beta_us_per_byte)
                 : bytes * in.beta_us_per_byte;
}

// Allgather and alltoall: the whole communicator at once (ring / pairwise) or through the
// outermost leaders (hierarchical rows). What separates them is the network interface a
// node's ranks share: flat, every rank's messages to other nodes queue on it; through
// the leaders, one aggregated message per pair of nodes.
Plan exchangePlan(const CollCall& c, const CostParams& p, const AlgorithmInfo* forced) {
    const bool a2a = c.args.kind == HIERAGG_ALLTOALL;
    const double S = static_cast<double>(modelBytes(c));
    const int n = c.size;
    const bool hier = isDecomposed(c);
    const Hierarchy* h = hier ? c.hierarchy : nullptr;
    const std::vector<int> links = hier ? (c.stageLinks && static_cast<int>(c.stageLinks->size()) == h->levels() + 1
                                               ? *c.stageLinks
                                               : stageLinks({}, h->levels()))
                                        : std::vector<int>{kLinkNode};
    const LinkCost& in = p.link[links.front()];
    const LinkCost& net = p.link[links.back()];
    int groups = 1, m = n;
    // Per outermost group: how many of its ranks send to a partner outside it, where rank r
    // sends to partnerOf(r) (a value >= n: no partner).
    auto leaving = [&](auto partnerOf) {
        const int top = h->levels() - 1;
        std::vector<int> out(static_cast<size_t>(groups), 0);
        for (int r = 0; r < n; ++r) {
            const int q = partnerOf(r);
            if (q < n && h->groupOf(top, r) != h->groupOf(top, q)) ++out[h->groupOf(top, r)];
        }
        return out;
    };
    std::vector<int> crossers;  // per outermost group: ranks whose ring successor is outside
    if (hier) {
        const int top = h->levels() - 1;
        groups = h->groupCount(top);
        m = 0;
        for (int g = 0; g < groups; ++g) m = std::max(m, static_cast<int>(h->groupMembers(top, g).size()));
        crossers = leaving([n](int r) { return (r + 1) % n; });
    }
    // A crowded node (more ranks than cores): what a row sends inside the node while its
    // network transfers run takes the cores that also drive those transfers, so it adds to
    // them instead of hiding behind them, and the node's m ranks share its cores for it.
    const bool crowded = hier && p.nodeCores > 0 && m > p.nodeCores;
    const double steps = std::max(0, n - 1), lg = std::ceil(std::log2(std::max(m, 1)));
    auto msg = [](const LinkCost& l, double bytes) { return l.theta_us + bytes * l.beta_us_per_byte; };
    StageChoice flat, whole, leaderRing, multiLeader;
    for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
        if (!unmetNeed(*a, c).empty()) continue;
        StageChoice s;
        s.algo = a;
        s.members = n;
        if (a->emitter == Emitter::MultiLeaderAllgather) {
            if (!hier) continue;
            // MultiLeaderAllgather.hpp: the m columns' rings share each node's link, (L - 1) steps
            // of m blocks; every member forwards each of the L blocks it holds to the m - 1 others
            // of its node while the rings go on; the last piece's forwards end it.
            const double L = groups;
            const size_t elem = std::max<size_t>(1, c.rtype.size);
            const double piece = std::min(
                S, static_cast<double>(recipes::multiLeaderPiece(static_cast<size_t>(S) / elem, elem, c.segmentBytes,
                                                                 groups) * elem));
            // Pieces pipeline around the ring: L - 1 hops plus the pieces behind the first.
            const double pieces = std::ceil(S / std::max(piece, 1.0));
            // The m columns' pieces of one hop leave a node together: a burst on its link.
            const double ring = (L - 1) * exchangeStartUs(net) +
                                (L - 2 + pieces) * (crossingUs(net, m) + m * piece * net.beta_us_per_byte);
            const double local = (m - 1) * L * msg(in, S);
            s.link = links.back();
            // Crowded node: the forwards add to the rings (2 x 4 round robin, 4 MiB: 245-290 ms
            // against 170-230 for Bruck and recursive doubling, whose crossing round runs alone
            // and whose node rounds follow it).
            const double forwards = crowded ? local * m / p.nodeCores : local;
            s.predUs = (crowded ? ring + forwards : std::max(ring, local)) + (m - 1) * (in.alpha_us + msg(in, piece));
            s.why = std::to_string(m) + " column rings of " + std::to_string(groups) + " nodes " + fmt("%.1f", ring) +
                    " us vs node forwards " + fmt("%.1f", local) + " us";
            multiLeader = s;
            continue;
        }
        if (a->emitter == Emitter::LeaderRing) {
            if (!hier) continue;
            // Linear gather into the leader; the leaders' ring of m blocks per step (one message
            // per run of consecutive ranks) overlaps the binomial bcasts of arrived groups, which
            // cost the leader lg copies of every group; then the last segment's bcast ends it.
            const Hierarchy& hh = *h;
            const int top = hh.levels() - 1;
            int runs = 1;
            for (int g = 0; g < groups; ++g) {
                const std::vector<int>& mem = hh.groupMembers(top, g);
                int rg = 1;
                for (size_t i = 1; i < mem.size(); ++i) rg += mem[i] != mem[i - 1] + 1;
                runs = std::max(runs, rg);
            }
            const double L = groups;
            const double gather = (m - 1) * (in.alpha_us + msg(in, S));
            const double ring = (L - 1) * (exchangeStartUs(net) + runs * net.theta_us + m * S * net.beta_us_per_byte);
            const double fanout = L * lg * runs * msg(in, m * S / runs);
            s.link = links.back();
            // Ring steps are cut into segments (at most 64 per step beyond one per run) that are
            // forwarded and broadcast as they arrive: after the ring only the last segment's
            // bcast remains.
            const double segment = std::min(m * S, std::max(static_cast<double>(c.segmentBytes), m * S / 64));
            // Crowded node: the bcasts add to the ring, as multileader's forwards do (measured
            // 273-300 ms on 2 x 4 round robin at 4 MiB, 4 ranks on 2 cores).
            s.predUs = gather + (crowded ? ring + fanout * m / p.nodeCores : std::max(ring, fanout)) +
                       lg * (in.alpha_us + msg(in, segment));
            s.why = std::to_string(groups) + " leaders, " + std::to_string(runs) + " runs per group, ring " +
                    fmt("%.1f", ring) + " us vs bcasts " + fmt("%.1f", fanout) + " us";
            leaderRing = s;
            continue;
        }
        if (a->serves & kServesFlat) {
            s.link = links.back();
            const int cross = crossers.empty() ? 0 : *std::max_element(crossers.begin(), crossers.end());
            if (a2a) {  // pairwise, 8 in flight: start-ups overlap; a node's messages out queue on its NIC
                const double outOfNode = hier ? static_cast<double>(m) * (n - m) : 0.0;
                s.predUs = std::ceil(steps / 8) * (hier ? net.alpha_us : in.alpha_us) +
                           std::max(crossingUs(net, outOfNode) + outOfNode * S * net.beta_us_per_byte,
                                    steps * msg(in, S));
                s.why = fmt("%.0f", outOfNode) + " messages leave the busiest node";
            } else if (a->emitter == Emitter::RecursiveDoubling || a->emitter == Emitter::Bruck) {
                // log2 n exchanges of 1, 2, 4 ... blocks; Bruck also copies every block twice locally.
                const double rounds = std::ceil(std::log2(std::max(n, 1)));
                const LinkCost& l = hier ? net : in;
                const double share = hier ? static_cast<double>(m) : 1.0;  // a node's ranks share its link
                // A round costs a network start-up only where some rank's partner (r xor d,
                // Bruck's r + d) is on another node, and the busiest node's crossing messages
                // go out together; the others stay inside the node. Recursive doubling on
                // blocks of 2 keeps its first round home, Bruck's rotations cross in every
                // round (4x2 block, 8 B allgatherv: 945 us on Bruck vs 609 us on allgather's
                // recursive doubling at the same old prediction).
                double latency = rounds * exchangeRoundUs(l);
                double transfer = steps * S * share * l.beta_us_per_byte;
                if (hier) {
                    latency = 0;
                    transfer = 0;
                    const bool bruck = a->emitter == Emitter::Bruck;
                    for (int d = 1; d < n; d *= 2) {
                        const std::vector<int> out = leaving([n, d, bruck](int r) { return bruck ? (r + d) % n : r ^ d; });
                        const int x = *std::max_element(out.begin(), out.end());
                        latency += x > 0 ? exchangeBurstUs(net, x) : exchangeRoundUs(in);
                        transfer += exchangeRoundBytesUs(net, in, x, std::min(d, n - d) * S);  // blocks of the round
                    }
                }
                s.predUs = latency + transfer;
                // allgather's Bruck rotates a scratch of every block; allgatherv's has none.
                if (a->emitter == Emitter::Bruck && c.args.kind == HIERAGG_ALLGATHER)
                    s.predUs += 2.0 * n * S * in.beta_us_per_byte;
                s.why = fmt("%.0f", rounds) + " rounds";
            } else {  // ring: every step waits for the slowest hop
                s.predUs = cross ? steps * (exchangeStartUs(net) + crossingUs(net, cross) + cross * S * net.beta_us_per_byte)
                                 : steps * (in.alpha_us + msg(in, S));
                s.why = std::to_string(cross) + " ring hops per step leave the busiest node";
            }
            if (flat.algo && !(forced == a) && (forced == flat.algo || flat.predUs <= s.predUs)) continue;
            flat = s;
        } else if (hier) {
            s.link = links.back();
            const double L = groups;
            if (a2a) {  // gather m*n blocks to the leader, exchange m*m blocks per pair of nodes, scatter
                const double local = (m - 1) * n * S * in.beta_us_per_byte + lg * (in.alpha_us + in.theta_us);
                s.predUs = 2 * local + std::ceil((L - 1) / 8) * net.alpha_us + (L - 1) * msg(net, m * m * S);
            } else {  // gather to the leader, ring of leaders with m blocks, broadcast n blocks down
                s.predUs = (m - 1) * S * in.beta_us_per_byte + lg * (in.alpha_us + in.theta_us) +
                           (L - 1) * (exchangeStartUs(net) + msg(net, m * S)) + lg * (in.alpha_us + msg(in, n * S));
            }
            s.why = std::to_string(groups) + " leaders, " + std::to_string(m) + " ranks per group";
            whole = s;
        }
    }
    Plan plan;
    // The leaders' ring without staging competes with the staged one as the Whole choice.
    if (leaderRing.algo && (forced ? forced == leaderRing.algo : !whole.algo || leaderRing.predUs < whole.predUs))
        whole = leaderRing;
    // The multi-leader exchange (no gather into one leader) competes the same way.
    if (multiLeader.algo && (forced ? forced == multiLeader.algo : !whole.algo || multiLeader.predUs < whole.predUs))
        whole = multiLeader;
    const bool takeWhole = whole.algo && (forced ? forced == whole.algo : !flat.algo || whole.predUs < flat.predUs);
    plan.mode = takeWhole ? Plan::Mode::Whole : Plan::Mode::Flat;
    plan.stages.push_back(takeWhole ? whole : flat);
    if (forced && plan.stages[0].algo == forced) plan.stages[0].why = "forced; " + plan.stages[0].why;
    plan.predUs = plan.stages[0].predUs;
    return plan;
}
}  // namespace

namespace {
Plan treePlan(const CollCall& c, const CostParams& p);
}

namespace {
// Scan, exscan: flat recursive doubling (every step may cross the network), the leader
// prefix (a scan inside each outermost group, an exscan of the G group totals between the
// groups' last ranks, a binomial bcast of that prefix in each group) and the leader chain
// (the running prefix passed group to group in rank order); one node with more ranks than
// cores also has the rank chain (linear), whose every rank combines and forwards once.
// Priced as one call of a back-to-back stream (IMB's loop, any loop of scans): a row whose
// every message goes to a higher rank (recursive doubling, leader_chain, and on one node
// the rank chain) lets consecutive calls overlap, so a call costs its busiest rank's
// occupancy (theta + S beta per message it sends or receives, S gamma per reduction) plus
// one crossing; the leader prefix's bcast
// from the last rank back into its group makes each call wait for the previous call's
// crossings, so it costs its whole latency. A forward-only row is priced that way only while
// a lone call of it takes at most twice the lowest lone-call latency (a chain over many
// groups makes G - 1 crossings where the exscan makes ceil(log2 G)); else by its latency.
Plan scanPlan(const CollCall& c, const CostParams& p, const AlgorithmInfo* forced) {
    const bool hier = isDecomposed(c);
    const double S = static_cast<double>(modelBytes(c));
    const double lg = std::ceil(std::log2(std::max(1, c.size)));
    const std::vector<int> links =
        hier ? (c.stageLinks && static_cast<int>(c.stageLinks->size()) == c.hierarchy->levels() + 1
                    ? *c.stageLinks
                    : stageLinks({}, c.hierarchy->levels()))
             : std::vector<int>{kLinkNode};
    auto round = [&](const LinkCost& l, bool reduces) {
        return l.alpha_us + l.theta_us + S * (l.beta_us_per_byte + (reduces ? l.gamma_us_per_byte : 0.0));
    };
    // A recursive-doubling step: every rank sends to r + d while it receives from r - d.
    auto exchangeRound = [&](const LinkCost& l) {
        return exchangeRoundUs(l) + S * (l.beta_us_per_byte + l.gamma_us_per_byte);
    };
    auto message = [&](const LinkCost& l) { return l.theta_us + S * l.beta_us_per_byte; };
    auto messageOf = [](const LinkCost& l, double bytes) { return l.theta_us + bytes * l.beta_us_per_byte; };
    const LinkCost& net = p.link[links.back()];
    struct Candidate {
        StageChoice s;
        double lone, stream;  // stream < 0: calls do not overlap
        bool alwaysStreams = false;  // priced as a stream even when its lone call is slow
    };
    std::vector<Candidate> rows;
    double loneMin = kInf;
    for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
        if (!unmetNeed(*a, c).empty() || (forced && a != forced)) continue;
        Candidate r;
        r.s.algo = a;
        r.s.members = c.size;
        r.s.link = links.back();
        r.stream = -1;
        if (a->emitter == Emitter::LeaderPrefix || a->emitter == Emitter::LeaderChain) {
            const Hierarchy& h = *c.hierarchy;
            const int top = h.levels() - 1, G = h.groupCount(top);
            int M = 1;
            for (int g = 0; g < G; ++g) M = std::max(M, static_cast<int>(h.groupMembers(top, g).size()));
            const double lm = std::ceil(std::log2(M)), lG = std::ceil(std::log2(std::max(1, G)));
            const LinkCost& in = p.link[links[links.size() - 2]];
            if (a->emitter == Emitter::LeaderPrefix) {
                r.lone = lm * round(in, true) + lG * round(net, true) + lm * round(in, false) + S * in.gamma_us_per_byte;
            } else {
                // Each group on the way: the prefix arrives, goes down the group's binomial tree
                // to its last rank, which combines it and passes it on.
                r.lone = lm * round(in, true) +
                         (G - 1) * (round(net, false) + lm * round(in, false) + S * in.gamma_us_per_byte) +
                         lm * round(in, false);
                // A group's first rank: its in-group rounds, the prefix in, its bcast sends, the
                // finish; a group of one also passes the prefix on.
                r.stream = lm * (2 * message(in) + S * in.gamma_us_per_byte) +
                           2 * message(net) + lm * message(in) + S * in.gamma_us_per_byte + net.alpha_us;
            }
            r.s.why = std::to_string(G) + " groups of up to " + std::to_string(M);
        } else if (a->emitter == Emitter::Linear) {
            // The rank chain: n - 1 hops of a pulse, later pulses one hop behind each other;
            // priced by its latency (a stream of calls still waits for the chain's hops).
            const double seg = static_cast<double>(std::max<size_t>(c.segmentBytes, 1));
            const double pulses = std::max(1.0, std::ceil(S / seg)), unit = std::min(S, seg);
            const double hop = net.alpha_us + net.theta_us + unit * (net.beta_us_per_byte + net.gamma_us_per_byte);
            // Every rank combines and forwards the vector once: (n - 1) messages in all.
            const double cores = coresBoundUs(c, p, (c.size - 1) * pulses, unit, net);
            r.lone = std::max((c.size - 1 + pulses - 1) * hop, cores);
            // On one node the chain is forward-only like recursive doubling (rank i only sends
            // to i + 1), so back-to-back calls overlap: a middle rank's pulses in and out, its
            // combines, one start-up. Measured (np 4 and 8 on 2 cores, 64 KiB, interleaved):
            // the chain 1.9-2.0x tuned's linear scan, recursive doubling 3.0-5.4x. Across
            // nodes it keeps its latency (not measured there; leader_chain is that row).
            if (!hier)
                r.stream = std::max(pulses * (2 * messageOf(net, unit) + unit * net.gamma_us_per_byte) + net.alpha_us,
                                    cores);
            // With more ranks than cores the chain streams whatever its length: its n - 1
            // hand-offs overlap the next calls' as the cores take turns. Measured (8 B, 8
            // ranks on 2 cores, 6 interleaved runs, 2026-11-23): the chain 2.6-2.8 us per
            // call, recursive doubling 4.2-6.3 us, though the chain's lone call (7 hand-offs)
            // is over twice recursive doubling's 3.
            r.alwaysStreams = crowdedOneNode(c, p);
            r.s.why = std::to_string(c.size - 1) + " hops, " + fmt("%.0f", pulses) + " pulses";
        } else {
            // Step d: ranks d..n-1 receive and combine the whole vector.
            double msgs = 0;
            for (int d = 1; d < c.size; d *= 2) msgs += c.size - d;
            const double cores = coresBoundUs(c, p, msgs, S, net);
            r.lone = std::max(lg * exchangeRound(net), cores);
            r.stream = std::max(lg * (2 * message(net) + S * net.gamma_us_per_byte) + net.alpha_us, cores);
            r.s.why = "ceil(log2 " + std::to_string(c.size) + ") rounds";
        }
        loneMin = std::min(loneMin, r.lone);
        rows.push_back(r);
    }
    Plan best;
    best.predUs = kInf;
    for (Candidate& r : rows) {
        const bool overlaps = r.stream >= 0 && (r.alwaysStreams || r.lone <= 2 * loneMin);
        r.s.predUs = overlaps ? std::min(r.lone, r.stream) : r.lone;
        r.s.why += overlaps ? "; back-to-back calls overlap (lone call " + fmt("%.2f", r.lone) + " us)"
                            : "; each call waits for the last";
        if (forced) r.s.why = "forced; " + r.s.why;
        if (r.s.predUs < best.predUs) {
            best.stages.assign(1, r.s);
            best.predUs = r.s.predUs;
            best.mode = r.s.algo->serves == kServesWhole ? Plan::Mode::Whole : Plan::Mode::Flat;
        }
    }
    return best;
}
}  // namespace

// Allreduce and reduce_scatter(_block): the tree plan (reduce + bcast / scatter) against the
// compositions without a root (ring, Rabenseifner, multi-leader, ...).
Plan choosePlan(const CollCall& c, const CostParams& p) {
    if (c.args.kind == HIERAGG_SCAN || c.args.kind == HIERAGG_EXSCAN) return scanPlan(c, p, forcedAlgorithm(c));
    Plan tree = treePlan(c, p);
    const bool scatters = c.args.kind == HIERAGG_REDUCE_SCATTER || c.args.kind == HIERAGG_REDUCE_SCATTER_BLOCK;
    if ((c.args.kind != HIERAGG_ALLREDUCE && !scatters) || c.inter) return tree;
    const AlgorithmInfo* forced = forcedAlgorithm(c);
    if (forced && !slices(*forced)) return tree;
    // coll_hieragg_offload=ofi: the offloaded leader stage wins wherever it serves (as in treePlan).
    const StageChoice* top = tree.mode == Plan::Mode::Levels && !tree.stages.empty() ? &tree.stages.back() : nullptr;
    if (top && top->algo && top->algo->emitter == Emitter::Fabric && c.offload && c.offload->preferred) return tree;
    const bool hier = isDecomposed(c);
    const std::vector<int> links =
        hier ? (c.stageLinks && static_cast<int>(c.stageLinks->size()) == c.hierarchy->levels() + 1
                    ? *c.stageLinks
                    : stageLinks({}, c.hierarchy->levels()))
             : std::vector<int>{};
    const double bytes = static_cast<double>(modelBytes(c));
    Plan best = tree;
    if (scatters && c.size > 1) {
        // The tree plan prices the reduce only; rank 0 then sends every other rank its block.
        // Those sends are posted at once (ReduceScatter.cpp, scatterPulse): their start-ups
        // overlap, so one alpha, then one theta per message and the bytes in sequence at rank 0
        // (docs/selection.md: n-1 alphas made the tree lose to a ring of n-1 dependent hops).
        const LinkCost& l = p.link[hier ? links.back() : kLinkNode];
        best.predUs += l.alpha_us + (c.size - 1) * l.theta_us + (c.size - 1.0) / c.size * bytes * l.beta_us_per_byte;
        // One node with more ranks than cores: rank 0's reduce waits for every other rank to
        // have run once, and so does its scatter (every rank waits for its block), so each
        // phase takes n / cores start-ups, as a ring step does, and the next call cannot
        // overlap it. Measured (8 B, 2 cores, interleaved): reduce + scatter 10.8 / 43 us
        // against recursive halving's 7.8 / 24 us on 4 / 8 ranks.
        if (crowdedOneNode(c, p))
            best.predUs = std::max(best.predUs, 2.0 * c.size / p.nodeCores * l.alpha_us);
    }
    const double treeUs = best.predUs;  // reduce_scatter: with the scatter
    for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
        if (!slices(*a) || !unmetNeed(*a, c).empty() || (forced && a != forced)) continue;
        Plan s;
        s.mode = a->serves == kServesWhole ? Plan::Mode::Whole : Plan::Mode::Flat;
        s.stages.push_back(predictSlices(*a, c, p, links, bytes));
        s.predUs = s.stages[0].predUs;
        if (forced) {
            s.stages[0].why = "forced; " + s.stages[0].why;
            return s;
        }
        if (s.predUs < best.predUs) best = s;
    }
    if (best.stages.size() == 1 && best.stages[0].algo && slices(*best.stages[0].algo))
        best.stages[0].why += "; beats the trees (" + fmt("%.2f", treeUs) + " us)";
    else
        best.predUs = tree.predUs;  // the tree plan as the runtime reports it
    best.note = tree.note;
    return best;
}

namespace {
Plan treePlan(const CollCall& c, const CostParams& p) {
    Plan plan;
    if (c.args.kind == HIERAGG_ALLGATHER || c.args.kind == HIERAGG_ALLGATHERV || c.args.kind == HIERAGG_ALLTOALL)
        return exchangePlan(c, p, forcedAlgorithm(c));
    const AlgorithmInfo* forced = forcedAlgorithm(c);
    Load ld;
    ld.shape = factsOf(c.args.kind).shape;
    // Bcast segments are cut from the packed stream (ranks' datatypes may differ): bytes.
    ld.elemBytes = ld.shape == Shape::Bcast ? 1 : std::max<size_t>(1, c.rtype.size);
    ld.bytes = static_cast<double>(modelBytes(c));
    ld.segmentCap = static_cast<double>(c.segmentBytes);
    if (ld.shape == Shape::Gather) ld.bytes *= c.size;
    ld.pulseBytes = std::min<double>(ld.bytes, std::max<size_t>(c.segmentBytes, 1));
    ld.pulses = ld.bytes > 0 ? std::ceil(ld.bytes / std::max(ld.pulseBytes, 1.0)) : 1;

    const bool hier = isDecomposed(c);
    if ((c.args.kind == HIERAGG_BCAST || c.args.kind == HIERAGG_REDUCE) && !c.inter && crowdedOneNode(c, p))
        ld.sharedCores = p.nodeCores;
    const std::vector<int> links =
        hier ? (c.stageLinks && static_cast<int>(c.stageLinks->size()) == c.hierarchy->levels() + 1
                    ? *c.stageLinks
                    : stageLinks({}, c.hierarchy->levels()))
             : std::vector<int>{};
    const bool forcedFlat = forced && forced->emitter == Emitter::FlatComposition;
    // Non-commutative reductions over non-contiguous groups must run flat (rank order).
    const bool reduces = ld.shape == Shape::Reduce || ld.shape == Shape::Allreduce;
    const bool orderBlocksHier = reduces && !c.args.op_commutative && hier &&
                                 !unmetNeed({c.args.kind, "", 0, kNeedsContiguousGroups, 0, Emitter::Tree,
                                             TreeShape::Kind::Knomial, ""}, c).empty();

    auto flatPlan = [&] {
        Plan f;
        f.mode = Plan::Mode::Flat;
        const int link = hier ? links.back() : kLinkNode;
        f.stages.push_back(bestFor(c, forced, kServesFlat, ld, p.link[link], c.size, link, p.epsilon_us));
        f.predUs = f.stages[0].predUs;
        return f;
    };
    if (!hier || forcedFlat || orderBlocksHier || c.inter) return flatPlan();

    const Hierarchy& h = *c.hierarchy;
    const std::vector<int> sizes = stageSizes(h);
    Plan levels;
    levels.mode = Plan::Mode::Levels;
    for (int level = 0; level <= h.levels(); ++level) {
        const unsigned where = level == h.levels() ? kServesLeaders : kServesSubspace;
        levels.stages.push_back(
            bestFor(c, forced, where, ld, p.link[links[level]], sizes[level], links[level], p.epsilon_us,
                    &p.offload));
        levels.predUs += levels.stages.back().predUs;
    }
    // Whole candidates: the type I hierarchical tree, the pipelined tree and the type II
    // switch tree; the cheapest wins against level by level. A forced
    // type2 that no switch tree fits falls back to the type I tree (SPEC 3.2), with a note.
    std::string note;
    auto whole = [&](const AlgorithmInfo& a) {
        if (a.emitter == Emitter::SwitchTree) return predictSwitchTree(a, c, ld, p, links, &note);
        if (a.emitter == Emitter::PipelinedTree) return predictPipeline(a, c, ld, p, links);
        if (a.emitter == Emitter::Direct) return predictDirect(a, c, ld, p, links);
        return predictWhole(a, c, ld, p, links);
    };
    if (forced && forced->serves == kServesWhole) {
        Plan w;
        w.mode = Plan::Mode::Whole;
        w.stages.push_back(whole(*forced));
        const AlgorithmInfo* typeOne = algorithmByName(c.args.kind, "hier_knomial");
        if (!w.stages[0].algo && typeOne && unmetNeed(*typeOne, c).empty()) w.stages[0] = whole(*typeOne);
        if (!w.stages[0].algo) {
            levels.note = note;
            return levels;
        }
        w.stages[0].why = (w.stages[0].algo == forced ? "forced; " : "forced type2 fell back to type I; ") +
                          w.stages[0].why;
        w.predUs = w.stages[0].predUs;
        w.note = note;
        return w;
    }
    const StageChoice& top = levels.stages.back();
    const bool offloadPreferred = top.algo && top.algo->emitter == Emitter::Fabric && c.offload->preferred;
    Plan best = levels;
    if (!forced && !offloadPreferred) {
        for (const AlgorithmInfo* a : algorithmsOf(c.args.kind)) {
            if (a->serves != kServesWhole ||
                (a->emitter != Emitter::HierarchicalTree && a->emitter != Emitter::SwitchTree &&
                 a->emitter != Emitter::PipelinedTree && a->emitter != Emitter::Direct) ||
                !unmetNeed(*a, c).empty())
                continue;
            Plan w;
            w.mode = Plan::Mode::Whole;
            w.stages.push_back(whole(*a));
            w.predUs = w.stages[0].predUs;
            if (w.stages[0].algo && w.predUs < best.predUs) best = w;
        }
    }
    if (best.mode == Plan::Mode::Whole)
        best.stages[0].why += "; beats level by level (" + fmt("%.2f", levels.predUs) + " us)";
    best.note = note;
    return best;
}
}  // namespace

std::shared_ptr<const Plan> planOf(const CollCall& c) {
    if (c.plan) return c.plan;
    static const CostParams defaults = CostParams::defaults();
    return std::make_shared<const Plan>(choosePlan(c, c.costs ? *c.costs : defaults));
}

std::string Plan::describe() const {
    std::string out;
    for (size_t i = 0; i < stages.size(); ++i) {
        const StageChoice& s = stages[i];
        if (!out.empty()) out += "\n";
        std::string where = mode == Mode::Flat     ? "flat"
                            : mode == Mode::Whole  ? "whole"
                            : i + 1 == stages.size() ? "leaders"
                                                     : "L" + std::to_string(i);
        out += "  " + where + " (" + linkClassName(s.link) + ", " + std::to_string(s.members) + " ranks): ";
        if (!s.algo) {
            out += "nothing to do";
            continue;
        }
        if (s.algo->emitter == Emitter::Fabric) {
            const char* what = s.algo->coll == HIERAGG_BARRIER                 ? "barrier"
                               : s.algo->shape == TreeShape::Kind::Chain         ? "triggered-chain"
                               : s.algo->coll == HIERAGG_BCAST                   ? "bcast"
                                                                                 : "allreduce";
            out += std::string("ofi-") + what + " pred=" + fmt("%.2f", s.predUs) + " us (" + s.why + ")";
            continue;
        }
        // Trees show their shape and radix; the other families (rings, butterflies, ...) have none.
        const bool tree = s.algo->emitter == Emitter::Tree || s.algo->emitter == Emitter::HierarchicalTree ||
                          s.algo->emitter == Emitter::PipelinedTree ||
                          s.algo->emitter == Emitter::FlatComposition;
        out += std::string(s.algo->name) +
               (tree ? " tree=" + s.shape.name() + " k=" + std::to_string(s.shape.k) : std::string()) +
               " seg=" + std::to_string(s.segmentBytes) + " B pred=" + fmt("%.2f", s.predUs) + " us";
        if (!s.why.empty()) out += " (" + s.why + ")";
    }
    return out;
}

}  // namespace hieragg::hier
