// One node with more ranks than cores (CostParams::nodeCores): the ranks take turns on the
// cores, so a call cannot end before the cores have done every rank's work. The terms the
// tree, chain, reduce_scatter and prefix rows add for it.
#pragma once
#include "hieragg/CollCall.hpp"
#include "hieragg/algorithms/MemberTree.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Selection.hpp"
#include "model/StageLoad.hpp"

namespace hieragg::hier::model {

// One node (no decomposition) with more ranks than cores (CostParams::nodeCores): the ranks
// take turns on the cores, which the one-node terms below price.
bool crowdedOneNode(const CollCall& c, const CostParams& p);

// A flat bcast on one node with more ranks than cores, priced as one call of a
// back-to-back stream (IMB's loop), as the reduce is there: a rank that has passed the
// message on starts the next call, so the calls' hand-offs overlap and a call costs what
// its busiest rank handles per call (`busiest`: bcastBusiestRankUs), bounded by every
// rank's work over the cores (`work`). A receiver copies the message out of its sender's
// memory itself (shared-memory single copy), so a parent serves a child in theta and the
// copies run side by side, but only `cores` at a time. Where the bound decides for several
// shapes, the shortest critical path of a lone call (`latency`: fewest hand-offs in
// sequence; at 64 KiB the star, as tuned's linear bcast) wins: kLatencyTieBreak of it
// breaks the tie, small enough never to outweigh a difference of the price, since a node
// with more ranks than cores measures a hand-off alpha hundreds of times its theta. The
// lone-call latency is not the price: with that alpha it would make every bcast a star,
// whose root handles n - 1 messages per call (journal 2026-11-27, "onenode").
constexpr double kLatencyTieBreak = 1e-9;
double sharedCoresBcastUs(double latency, double work, double busiest, const Load& ld);

// What the busiest rank of a bcast tree handles per call: theta per child it serves, and
// a non-root's own reception, theta + S beta (it copies the message itself).
double bcastBusiestRankUs(const MemberTree& t, const Load& ld, const LinkCost& l);

// A flat reduce on one node with more ranks than cores, priced as one call of a
// back-to-back stream (IMB's loop): every message of
// a reduction tree goes toward the root, so consecutive calls overlap and a call costs its
// busiest rank's receptions (d children per pulse) plus one start-up, bounded by all ranks'
// receptions over the cores; when the bound decides, the shape whose busiest rank handles
// fewest messages wins (1e-3 of its share breaks the tie): a chain spreads the combining
// over every rank. Only where the cores bound the shape (short vectors keep the lone-call
// model), and only while its lone call (`lone`) takes at most twice the
// quickest shape's (`loneMin`): a chain's n - 1 hand-offs in sequence stay priced as such.
// Measured (np 4 and 8 on 2 cores, 64 KiB, interleaved with tuned's binomial): chain
// 0.96-1.79x, k-ary 1.04-5.1x, k-nomial (k = 3) 1.4-12x.
double sharedCoresReduceUs(const Load& ld, const LinkCost& l, int n, double d, double b, double lone,
                           double loneMin);

// The quickest lone reduce over the shapes sharedCoresReduceUs compares: k-nomial k = 2..n
// (the k-ary trees of the same fan-out are no quicker) and the chain.
double reduceLoneMinUs(const Load& ld, const LinkCost& l, int n, double b);

// The tree rows on one node with more ranks than cores, best k of 2..n (k-nomial; k-ary up
// to kMaxRadix). Reduce: sharedCoresReduceUs with the tree's busiest rank. Bcast:
// sharedCoresBcastUs with the tree's busiest rank, and for the tie the exact tree model, a
// parent's turn per child theta and the child's own copy part of its arrival
// (a = alpha + S beta): each rank copies once.
StageChoice sharedCoresTree(const AlgorithmInfo& a, const Load& ld, const LinkCost& l, int n);

// More ranks on one node than cores (CostParams::nodeCores): the ranks' work, `msgs`
// receptions that each combine `bytes`, cannot finish faster than the cores can do it.
// Only for a flat plan inside one node (no decomposition); 0 elsewhere.
double coresBoundUs(const CollCall& c, const CostParams& p, double msgs, double bytes, const LinkCost& l);

}  // namespace hieragg::hier::model
