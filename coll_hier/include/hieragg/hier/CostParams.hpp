// Per-level parameters of the selection's cost model (SPEC 3.2/3.4): for each
// kind of link a message of a stage crosses, the start-up alpha, the per-byte
// transfer beta, the per-message processing theta of the receiving process and
// the per-byte reduction gamma. They come from coll_hieragg_cost_<link>_<param>
// (see docs/selection.md; hieragg-calibrate measures them).
#pragma once
#include <string>
#include <vector>

#include "hieragg/abi.h"

namespace hieragg::hier {

enum LinkClass : int { kLinkNuma = 0, kLinkNode = 1, kLinkNetwork = 2, kLinkSwitch = 3, kLinkClassCount = 4 };
const char* linkClassName(int link);  // "numa", "node", "network", "switch"

struct LinkCost {
    double alpha_us = 1.0;           // start-up of one message [µs]
    double beta_us_per_byte = 0.0;   // transfer [µs/byte]
    double theta_us = 0.0;           // matching/processing per message at the receiver [µs]
    double gamma_us_per_byte = 0.0;  // reduction [µs/byte]
    // Each further message of a burst that crosses this link at once (several ranks of a
    // node sending out together, a root's blocks to many peers) [µs]; < 0: theta_us. Not
    // an MCA parameter: the network's grows with its measured alpha (applyMeasuredLink).
    double burst_us = -1.0;
    // One round in which every member both sends and receives across this link at once
    // (a dissemination or butterfly round, a recursive-doubling scan step) [us]; < 0:
    // alpha_us + theta_us, one start-up as for a lone message. The network's is measured at
    // setup (LinkCalibration.hpp) or set by coll_hieragg_cost_network_exchange.
    double exchange_us = -1.0;
    // Per byte each way while both directions of the link carry data at once (every step of a
    // ring or an exchange across it: each node sends and receives) [us/byte]; < 0: beta (a
    // link as fast both ways as one). The network's is measured at setup
    // (LinkCalibration.hpp) or set by coll_hieragg_cost_network_duplex in a parameters file.
    double duplex_beta_us_per_byte = -1.0;
    // A message of at least eager_bytes goes by rendezvous: one way it pays rendezvous_us
    // more (the handshake) on top of alpha + bytes beta. Both measured at setup for the
    // network (LinkCalibration.hpp); eager_bytes 0: no such term (the defaults).
    double eager_bytes = 0.0;
    double rendezvous_us = 0.0;
};

// The per-message cost of a burst's further messages on link l (burst_us, else theta_us).
inline double burstUs(const LinkCost& l) { return l.burst_us >= 0 ? l.burst_us : l.theta_us; }
// x messages crossing link l at once: the first costs theta, each further one burstUs.
inline double crossingUs(const LinkCost& l, double x) { return x <= 0 ? 0.0 : l.theta_us + (x - 1) * burstUs(l); }
// The rendezvous a message of `bytes` on link l pays (0 below the eager limit or unmeasured).
inline double rendezvousUs(const LinkCost& l, double bytes) {
    return l.eager_bytes > 0 && bytes >= l.eager_bytes ? l.rendezvous_us : 0.0;
}
// The latency of one exchange round on link l (exchange_us, else alpha + theta).
inline double exchangeRoundUs(const LinkCost& l) { return l.exchange_us >= 0 ? l.exchange_us : l.alpha_us + l.theta_us; }
// The per-byte cost each way when both directions of link l are busy: duplex_beta_us_per_byte,
// never below beta (both ways at once are never faster per direction than one way alone).
inline double duplexBetaUs(const LinkCost& l) {
    return l.duplex_beta_us_per_byte > l.beta_us_per_byte ? l.duplex_beta_us_per_byte : l.beta_us_per_byte;
}
// Its start-up part (the round less the receiver's theta), for formulas that count theta
// per message apart: alpha when not measured.
inline double exchangeStartUs(const LinkCost& l) { return exchangeRoundUs(l) - l.theta_us; }
// An exchange round in which x messages leave the busiest member's side of link l at once:
// the round's latency, then each further message of the burst.
inline double exchangeBurstUs(const LinkCost& l, double x) {
    return exchangeRoundUs(l) + (x > 1 ? (x - 1) * burstUs(l) : 0.0);
}

struct CostParams {
    LinkCost link[kLinkClassCount];
    // One round of an offloaded collective among the leaders (coll_hieragg_cost_ofi_*):
    // alpha per round, beta per byte moved, gamma per byte reduced (docs/offload.md).
    LinkCost offload{25.0, 1.0 / 250, 0.0, 1.0 / 4000};
    double epsilon_us = 0.1;  // width band of SPEC 3.2: k within epsilon of F(k*)
    // Predictions this close (relative) to the cheapest are the same within the measured
    // parameters' noise: the chooser keeps the earliest such candidate in its fixed order,
    // so jobs whose calibrations differ by their noise choose alike. 0 (the defaults,
    // nothing measured): the cheapest, ties to the earliest. Set by applyMeasuredLink.
    double closeFraction = 0.0;
    // Cores of the node (0 = unknown). With more ranks than cores on one node, a flat plan
    // cannot finish before the ranks' combined work divided by the cores (scan's rows).
    int nodeCores = 0;
    static CostParams defaults();
};

// From the component's configuration (units of hieragg_link_cost; negative fields and
// all-zero classes take the defaults).
CostParams costParamsFrom(const hieragg_link_cost (&links)[HIERAGG_LINK_CLASS_COUNT]);
// Applies coll_hieragg_cost_ofi_* (component units; negative fields keep the default).
void applyOffloadCost(CostParams& p, const hieragg_link_cost& ofi);
// The offload defaults in the component's units.
hieragg_link_cost defaultOffloadCost();
// The defaults in the component's units.
hieragg_link_cost defaultLinkCost(int link);

// Sets one parameter by its MCA name (coll_hieragg_cost_<link>_<alpha|beta|theta|gamma|exchange|duplex>,
// MCA units; exchange: LinkCost::exchange_us; duplex: LinkCost::duplex_beta_us_per_byte in ns/B); false if the name is not one of them.
bool setCostParam(CostParams& p, const std::string& mcaName, double value);
// Reads MCA lines ("name = value", as in openmpi-mca-params.conf and as hieragg-calibrate
// prints them; '#' comments; other parameters ignored). Returns the problems found.
std::string readCostParams(CostParams& p, const std::string& path);

// Link class of every stage of a decomposition (index = level; levels() = the leader
// space) from the names of its levels ("numa", "node", "virtual:4", "topology", ...):
// a stage inside a level-l group crosses the links inside that kind of group, the
// leader space crosses the next kind out. Empty names: node inside, network between.
std::vector<int> stageLinks(const std::vector<std::string>& levelNames, int levels);

}  // namespace hieragg::hier
