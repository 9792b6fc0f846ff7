// Automatic calibration of one link class (the network between nodes) at
// communicator setup: the pure parts. The runtime (src/runtime/LinkCalibrationStage.cpp)
// times a few ping-pongs between leaders; this file turns the round trips into
// alpha/beta, makes every rank agree on one value from the same records, and says
// which parameters the measurement may replace (explicit MCA values and rules files win).
#pragma once
#include <cstddef>
#include <vector>

#include "hieragg/hier/CostParams.hpp"

namespace hieragg::hier {

struct MeasuredLink {
    bool valid = false;
    double alpha_us = 0;          // one-way start-up of a small message [us]
    double beta_ns_per_byte = 0;  // per byte of a long message [ns/B]
    // One round in which both ends of every pair send and receive a small message at once
    // (LinkCost::exchange_us) [us]; 0: not measured.
    double exchange_us = 0;
};

// Bounds of what a measurement may say (a clock step or an idle peer must not set the
// model to absurd values): beta at least kMinBetaNsPerByte (100 GB/s).
constexpr double kMinBetaNsPerByte = 0.01;

// alpha = min(small round trips) / 2; beta = (min(large round trips) - min(small round
// trips)) / (largeBytes - smallBytes), where a large round trip is largeBytes there and
// smallBytes back. Minimums: a round trip is never faster than the link, only slower
// (a peer busy elsewhere, a connection being opened). Invalid without both kinds of
// samples or with a non-positive small round trip.
MeasuredLink estimateLink(const std::vector<double>& smallRttUs, const std::vector<double>& largeRttUs,
                          size_t largeBytes, size_t smallBytes);

// One exchange round from the durations of back-to-back rounds (each side sends its small
// message and receives the other's at once, the next round when its message arrived).
// Consecutive rounds alternate around the round time by the two sides' skew (L - d, L + d),
// so each pair of neighbours is averaged, and the smallest such mean taken, like alpha's
// minimum: a round is never faster than the link, only slower (a busy machine; samples of
// 5 us to 19 ms were seen on the emulated cluster under load). At least `alphaUs` (a round
// carries a one-way message); 0 without two neighbouring finite positive samples.
double estimateExchangeRound(const std::vector<double>& roundUs, double alphaUs);

// The value every rank uses: the median (mean of the two middle values for an even
// count) of the valid measurements, alpha and beta separately, and the exchange round over
// the valid measurements that have one (0 if none has). Every rank holds the same
// records, so every rank computes the same bits. Invalid if none is valid.
MeasuredLink agreeLink(const std::vector<MeasuredLink>& measurements);

// What the user decided (coll_hieragg_cost_autocalibrate, coll_hieragg_rules_file,
// and whether coll_hieragg_cost_network_alpha/_beta were set explicitly).
struct CalibrationPolicy {
    bool autocalibrate = true;
    bool rulesFile = false;
    bool alphaExplicit = false;
    bool betaExplicit = false;
    // coll_hieragg_cost_ofi_alpha/_beta set explicitly (see applyMeasuredLink).
    bool offloadAlphaExplicit = false;
    bool offloadBetaExplicit = false;
    // coll_hieragg_cost_network_theta set explicitly: the burst cost stays theta.
    bool thetaExplicit = false;
    // coll_hieragg_cost_network_exchange set explicitly: the measured exchange round is unused.
    bool exchangeExplicit = false;
};

// Whether a measurement can change anything: off, a rules file, or both parameters set
// explicitly means no measurement (today's behaviour).
bool calibrationWanted(const CalibrationPolicy& policy);

// Replaces p.link[link]'s alpha and beta by the measurement, each unless set explicitly;
// nothing when the policy wants no calibration or the measurement is invalid. For the
// network link, an offloaded round (p.offload) crosses the same network: where the
// measurement makes the network slower than p said, the offload's alpha/beta (unless set
// explicitly) grow by the same factor, so the offload keeps its standing against
// point-to-point (with the defaults, offload=auto never opens; docs/offload.md).
// The cost of each further message of a burst crossing the network (LinkCost::burst_us)
// grows by the alpha's factor too, unless theta was set explicitly: on the emulated
// cluster messages that leave a node together cost 11-28 µs each, not the default 0.2.
// The network's exchange round (LinkCost::exchange_us) becomes the measured one unless set
// explicitly; with alpha set explicitly it keeps the measured ratio to the measured alpha.
void applyMeasuredLink(CostParams& p, int link, const MeasuredLink& m, const CalibrationPolicy& policy);

}  // namespace hieragg::hier
