// One node with more ranks than cores (CostParams::nodeCores): the ranks take turns on the
// cores, so the scheduler's hand-offs (a measured alpha of tens of us against a theta of
// 0.1-1 us) dominate a call. The model's objective there is the one of every other call and
// of the project benchmark (`perf-compare.sh --regret`, calls timed one at a time): one lone
// call's latency (loneCrowdedCall). The rows that follow it here: the bcast and reduce trees
// (sharedCoresTree, the chain row), the scan and exscan rows (algorithms/scan/linear.cpp,
// recursive_doubling.cpp). Only measured parameters enter (alpha, theta, beta, gamma, the
// node's cores).
#pragma once
#include <vector>

#include "hieragg/CollCall.hpp"
#include "hieragg/algorithms/MemberTree.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Selection.hpp"
#include "model/StageLoad.hpp"

namespace hieragg::hier::model {

// One node (no decomposition) with more ranks than cores (CostParams::nodeCores).
bool crowdedOneNode(const CollCall& c, const CostParams& p);

// One lone call of `ranks` ranks on `cores` shared cores. Two lower bounds, the larger is
// the prediction (PredictedCost::us):
//   latency   the row's critical path with the measured hand-off alpha per dependent hop
//             (its own lone-call model);
//   turns     every rank has to run at least once, each turn a hand-off (`alphaUs`, the node
//             link's measured alpha: a ping-pong while the other ranks wait), and do its part
//             of the receptions (`work`), `cores` at a time: (ranks alpha + work) / cores.
// A star has the shortest critical path but not fewer turns: on 8 ranks of 2 cores an 8-byte
// star, binomial or binary tree are all priced 4 alpha (the turns), the chain 7 alpha (its
// critical path). Where the turns decide for several shapes, what the busiest rank handles
// per call, bounded by all receptions over the cores (max(busiest, work / cores): one call's
// share of a back-to-back stream), breaks the tie (PredictedCost::tieUs): the trees whose
// busiest rank posts fewest messages before the star. Where that share is the receptions
// over the cores for several shapes too (8 B on 8 ranks of 2 cores: a binomial and a binary
// tree), `fan`, the row's largest fan (largestFanUs), orders them (PredictedCost::fanUs):
// the binary tree's root posts 2 sends, the binomial's 3.
PredictedCost loneCrowdedCall(double latency, double work, double busiest, double fan, int ranks, double alphaUs,
                              int cores);

// What one rank handles per call: the messages it sends (the sender's turn each, sendUs) and
// receives (the receiver's part each, recvUs).
struct RankMessages {
    int sends = 0;
    int receptions = 0;
};
// The busiest rank's share of a call, every row's: the most any rank handles,
// sends * sendUs + receptions * recvUs. Bcast (the receiver copies): sendUs = theta,
// recvUs = theta + S beta. Reduce and scan (the receiver combines): sendUs = theta,
// recvUs = theta + u(beta + gamma).
double busiestRankUs(const std::vector<RankMessages>& ranks, double sendUs, double recvUs);
// The most messages one rank posts one after another in one direction (all its sends, or all
// its receptions: a bcast parent's children, a reduce parent's), `messageUs` (theta) each:
// max over ranks of max(sends, receptions) * messageUs.
double largestFanUs(const std::vector<RankMessages>& ranks, double messageUs);
// Per member of tree t, its messages when data flows down it (bcast; the chain of a scan
// rooted at rank 0: each receives from its parent, sends to each child) or up (reduce: each
// receives from each child, sends to its parent).
enum class Flow { Down, Up };
std::vector<RankMessages> treeMessages(const MemberTree& t, Flow flow);
// Per rank of the recursive-doubling scan on n ranks: in step d = 1, 2, 4, ... < n rank r
// sends to r + d (if < n) and receives from r - d (if >= 0).
std::vector<RankMessages> doublingMessages(int n);

// The bcast and reduce tree rows on such a node, best k of 2..n (k-nomial; k-ary up to
// kMaxRadix), each priced by loneCrowdedCall with its exact lone-call tree model, n - 1
// receptions of work and its busiest rank. Bcast: a parent's turn per child theta and the
// child's own copy part of its arrival (a = alpha + S beta). Reduce: `pulses` pulses of
// b = theta + u(beta + gamma) per reception (packetUs).
StageChoice sharedCoresTree(const AlgorithmInfo& a, const Load& ld, const LinkCost& l, int n);

}  // namespace hieragg::hier::model
