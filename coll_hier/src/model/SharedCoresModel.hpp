// One node with more ranks than cores (CostParams::nodeCores): the ranks take turns on the
// cores, so the scheduler's hand-offs (a measured alpha of tens to hundreds of us against a
// theta of 0.1-6 us) dominate a lone call. The model's objective there, in one rule:
//
//   A collective whose consecutive calls can overlap -- no call synchronises all ranks:
//   bcast, reduce, scan, exscan -- is priced as one call of a back-to-back stream
//   (IMB's loop; streamCall): what its busiest rank handles per call, bounded by every
//   rank's work over the cores, its lone call's latency only breaking ties. A collective
//   whose every call synchronises all ranks (allreduce, barrier, allgather, alltoall,
//   reduce_scatter...) keeps its lone call's latency as the price.
//
// Only measured parameters enter (alpha, theta, beta, gamma, the node's cores). The rows
// that follow the rule: the bcast and reduce trees (sharedCoresTree, the chain row), the
// scan and exscan rows (algorithms/scan/linear.cpp, recursive_doubling.cpp).
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

// One call of a back-to-back stream on `cores` shared cores: a rank that has done its part
// starts the next call, so the calls' hand-offs overlap and a call costs what its busiest
// rank handles per call (`busiest`), bounded by every rank's work over the cores (`work`).
// That is the prediction (PredictedCost::us). Where the bound decides for several shapes,
// the shortest critical path of a lone call (`latency`) wins: it is the tie-break
// (PredictedCost::tieUs), compared only between equal predictions. The lone-call latency is
// not the price: with a hand-off alpha hundreds of times theta it would make every bcast and
// short reduce a star, whose root handles n - 1 messages per call, and every scan recursive
// doubling, whose ranks handle ~log2 n each (tuned's chain: 2).
PredictedCost streamCall(double latency, double work, double busiest, int cores);

// What one rank handles per call of such a stream: the messages it sends (the sender's
// turn each, sendUs) and receives (the receiver's part each, recvUs).
struct RankMessages {
    int sends = 0;
    int receptions = 0;
};
// The busiest rank's share of a call, every row's: the most any rank handles,
// sends * sendUs + receptions * recvUs. Bcast (the receiver copies): sendUs = theta,
// recvUs = theta + S beta. Reduce and scan (the receiver combines): sendUs = theta,
// recvUs = theta + u(beta + gamma).
double busiestRankUs(const std::vector<RankMessages>& ranks, double sendUs, double recvUs);
// Per member of tree t, its messages when data flows down it (bcast; the chain of a scan
// rooted at rank 0: each receives from its parent, sends to each child) or up (reduce: each
// receives from each child, sends to its parent).
enum class Flow { Down, Up };
std::vector<RankMessages> treeMessages(const MemberTree& t, Flow flow);
// Per rank of the recursive-doubling scan on n ranks: in step d = 1, 2, 4, ... < n rank r
// sends to r + d (if < n) and receives from r - d (if >= 0).
std::vector<RankMessages> doublingMessages(int n);

// The bcast and reduce tree rows on such a node, best k of 2..n (k-nomial; k-ary up to
// kMaxRadix), each priced by streamCall with its busiest rank, n - 1 receptions of work
// and its exact lone-call tree model. Bcast: a parent's turn per child theta and the
// child's own copy part of its arrival (a = alpha + S beta). Reduce: `pulses` pulses of
// b = theta + u(beta + gamma) per reception (packetUs).
StageChoice sharedCoresTree(const AlgorithmInfo& a, const Load& ld, const LinkCost& l, int n);

}  // namespace hieragg::hier::model
