// Automatic calibration of a link class (the node link between ranks of one node, the
// network between nodes) at communicator setup: the pure parts. The runtime
// (src/runtime/LinkCalibrationStage.cpp) times ping-pongs of several sizes between the
// two ends of disjoint pairs (ranks of one node; leaders), both ends in turn; this file
// turns the round trips into the model's parameters, rejects what no link can be, makes
// every rank agree on one value from the same records, and says which parameters the
// measurement may replace (explicit MCA values and rules files win). docs/selection.md,
// "Automatic calibration", describes the model these parameters feed.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "hieragg/hier/CostParams.hpp"

namespace hieragg::hier {

struct MeasuredLink {
    bool valid = false;
    // Not valid because the setup measured and rejected it twice: later communicators keep
    // the MCA values too rather than measure again (one outcome per job).
    bool rejected = false;
    double alpha_us = 0;          // one-way start-up of a small message [us]
    // Per byte of a long message [ns/B]: the rate above the eager limit (no handshake in
    // it) when sizes above it were measured, else the eager rate. The model's beta.
    double beta_ns_per_byte = 0;
    // One round in which both ends of every pair send and receive a small message at once
    // (LinkCost::exchange_us) [us]; 0: not measured.
    double exchange_us = 0;
    double eager_beta_ns_per_byte = 0;  // per byte below the eager limit [ns/B]; 0: not measured
    // A message of at least eager_bytes pays this once more, one way: the rendezvous
    // handshake (LinkCost::rendezvous_us) [us]; 0 with eager_bytes 0: not measured.
    double rendezvous_us = 0;
    double eager_bytes = 0;
    // Each further message of a back-to-back stream of small messages (LinkCost::burst_us)
    // [us]; 0: not measured.
    double burst_us = 0;
    // Per byte each way while both ends send a long message at once (LinkCost::
    // duplex_beta_us_per_byte) [ns/B]; 0: not measured.
    double duplex_beta_ns_per_byte = 0;
    // How far the value may be off: one end's own, the relative uncertainty of its fit
    // (estimateLink); agreed, also the largest relative spread of alpha and beta between
    // the measurements agreed on (the two ends of a pair, the pairs).
    double noise = 0;
};

// A MeasuredLink as the records the ranks exchange carry it: doubles only (no padding
// bytes travel), `valid` 1 (valid), -1 (rejected) or 0 (nothing measured).
struct LinkRecord {
    double valid, alpha_us, beta_ns_per_byte, exchange_us, eager_beta_ns_per_byte, rendezvous_us, eager_bytes,
        burst_us, noise, duplex_beta_ns_per_byte;
};
LinkRecord toRecord(const MeasuredLink& m);
MeasuredLink fromRecord(const LinkRecord& r);

// Bounds of what a measured network link may say; outside them the estimate is rejected
// (a clock step, a peer descheduled for every sample of one size, an idle loopback):
// alpha 0.05 us .. 20 ms, beta 0.005 ns/B (200 GB/s) .. 10 us/B (100 KB/s).
constexpr double kMinAlphaUs = 0.05, kMaxAlphaUs = 20000;
constexpr double kMinBetaNsPerByte = 0.005, kMaxBetaNsPerByte = 10000;
// The two ends of a pair disagree when one's alpha or beta is more than this factor the
// other's: the load changed under one end's rounds, and that end's estimate is not used.
constexpr double kPairAgreementFactor = 2.0;
// Above the eager limit the data moves without the eager path's copies, never slower per
// byte: a bulk slope more than this factor over the eager one is load on the long round
// trips (seen: 73 ns/B on the 1 Gbit/s link at load 23), and the eager rate is used.
constexpr double kBulkSlowerSlack = 1.25;

// Round trips of one size: a message of `bytes` there, `replyBytes` (8) back [us each].
struct RoundTrips {
    size_t bytes = 0;
    std::vector<double> us;
};

// The sizes one end times: below the eager limit E 8 B, E/4, E/2; above it 2E and 4E.
// E unknown (under 64 B): 8 B, 16 KiB, 32 KiB and nothing above; E over 512 KiB: the sizes
// below as for 512 KiB, nothing above (a second of round trips on a slow link otherwise).
// Then, while the largest is under `largestBytes`, four times the largest (at most
// largestBytes): sizes whose bytes outweigh a round trip's noise (kNodeLargestBytes).
std::vector<size_t> calibrationSizes(size_t eagerBytes, size_t largestBytes = 0);

// The largest size the node link's pass times. Shared memory copies at 0.05-1 ns/B, so 4E
// (16 KiB past vader's 4 KiB) carries 1-16 us of bytes, less than the spread of a round
// trip's floor between ranks that share cores (tens of us): its slope is noise (0.3-33 ns/B
// over the jobs of one benchmark). 1 MiB carries 50-1000 us, the rate a pulse of a large
// message moves at. The network's 4E (256 KiB past TCP's 64 KiB) is already mostly bytes
// (2 ms at 1 Gbit/s) and keeps its ladder (larger sizes there only lengthen the setup).
constexpr size_t kNodeLargestBytes = size_t{1} << 20;

// The estimate of one end from its round trips (replyBytes each way back):
// - per size the floor: the minimum of the finite positive samples (a round trip is never
//   faster than the link, only slower: a busy machine adds 0.1-10 ms to some samples), and
//   how far it may be off, the gap to the second smallest sample (0 with one: taken as is);
// - sizes below eagerBytes (all, when eagerBytes is 0): a least-squares line through the
//   floors, RTT(m) = 2 alpha + (m + replyBytes) beta_eager;
// - sizes at or above eagerBytes (two or more): the line's slope is the bulk beta, and its
//   excess over 2 alpha + replyBytes beta_eager at the first size over m beta is the
//   rendezvous, one way: RTT(m) = 2 alpha + rendezvous + m beta + replyBytes beta_eager.
// Each line's slope is known to within the sum of its floors' gaps weighted by their
// influence on the slope; a slope is "known" when within kMaxCloseFraction of itself.
// - A bulk slope not known while the eager one is known better (load delayed every long
//   round trip of one size): the bulk line is set aside, as below for a slower bulk slope.
// - An eager slope under kMinBetaNsPerByte (shared memory, whose small sizes differ by less
//   than the noise), or not known while the bulk one is known: the bulk rate prices every
//   byte, and the start-up is the smallest eager floor net of it.
// A bulk slope over kBulkSlowerSlack times the eager one is load: then beta is the eager
// one and the rendezvous the smallest excess over 2 alpha + (m + replyBytes) beta_eager
// among the sizes above the limit.
// noise: the relative uncertainty of the slopes used and of alpha (the intercept's, halved),
// kMaxCloseFraction when unknown; it widens the chooser's band (closeFractionOf).
// Invalid (why says it) when the slope that gives beta is not known within 100% of itself
// (the floors' gaps exceed what the rate accounts for between the sizes: load on every size)
// and `rejectUnknownRate` (the stage's first attempt: it measures again; its last attempt
// keeps such a rate, with its noise, over the defaults), without two sizes below the limit with samples, or with alpha or a
// beta outside the bounds above (a line that falls as the size grows among them: under
// load every sample of the smallest size was delayed). Fewer than two sizes above the
// limit: beta is the eager one, no rendezvous. `note`, when a line was set aside or the bulk
// rate priced every byte, says so and why (left alone otherwise).
MeasuredLink estimateLink(const std::vector<RoundTrips>& rounds, size_t replyBytes, size_t eagerBytes,
                          std::string* why = nullptr, std::string* note = nullptr,
                          bool rejectUnknownRate = true);

// The back-to-back gap: `streamUs` are round trips in which `count` small messages leave
// back to back and one reply returns when the last arrived, `singleUs` those of one small
// message: (min(stream) - min(single)) / (count - 1), within 0..alphaUs (a further message
// of a stream never costs more than one sent alone: more is load); 0 without samples.
double estimateBurst(const std::vector<double>& streamUs, const std::vector<double>& singleUs, int count,
                     double alphaUs);

// One exchange round from the durations of back-to-back rounds (each side sends its small
// message and receives the other's at once, the next round when its message arrived).
// Consecutive rounds alternate around the round time by the two sides' skew (L - d, L + d),
// so each pair of neighbours is averaged, and the smallest such mean taken, like alpha's
// minimum: a round is never faster than the link, only slower (a busy machine; samples of
// 5 us to 19 ms were seen on the emulated cluster under load). At least `alphaUs` (a round
// carries a one-way message); 0 without two neighbouring finite positive samples.
double estimateExchangeRound(const std::vector<double>& roundUs, double alphaUs);

// The two ends of one pair, each its own estimate: invalid unless both are. When their alpha
// and beta agree within kPairAgreementFactor each parameter is the mean of the two; when
// they do not the end with the smaller noise (its own fit the better known) is kept whole, or
// with equal noise the one with the smaller alpha (load only adds time, so that end was the
// less disturbed) and `disagreed` says which parameter differs, and by how much (it
// is left alone otherwise). Noise is the larger relative spread (|a - b| / min(a, b)) of
// alpha and beta, or an end's own if larger.
MeasuredLink combinePair(const MeasuredLink& a, const MeasuredLink& b, std::string* disagreed = nullptr);

// The per-byte cost each way when both directions carry data at once, from rounds in which both
// ends of every pair send `bytes` and receive the other's at once (each round when its message
// arrived): the smallest mean of neighbouring rounds (as estimateExchangeRound), less one
// exchange round of small messages (`exchangeUs`) and the rendezvous (`rendezvousUs`, 0 below
// the eager limit), per byte [ns/B]; at least `betaNsPerByte` (both ways at once are never
// faster per direction than one way). 0 without two neighbouring samples or bytes.
double estimateDuplexBeta(const std::vector<double>& roundUs, double bytes, double exchangeUs, double rendezvousUs,
                          double betaNsPerByte);

// The value every rank uses: the median (mean of the two middle values for an even
// count) of the valid measurements, each parameter separately, the exchange round, burst,
// both-directions rate and rendezvous over the valid measurements that have one (0 if none has); noise the
// largest of the measurements' own and of the relative spread of their alphas and betas.
// Every rank holds the same records, so every rank computes the same bits. Invalid if
// none is valid, and then `rejected` if any was.
MeasuredLink agreeLink(const std::vector<MeasuredLink>& measurements);

// What the user decided for one link class (coll_hieragg_cost_autocalibrate,
// coll_hieragg_rules_file, and whether coll_hieragg_cost_<link>_alpha/_beta/_theta were set
// explicitly).
struct CalibrationPolicy {
    bool autocalibrate = true;
    bool rulesFile = false;
    bool alphaExplicit = false;
    bool betaExplicit = false;
    // coll_hieragg_cost_ofi_alpha/_beta set explicitly (see applyMeasuredLink).
    bool offloadAlphaExplicit = false;
    bool offloadBetaExplicit = false;
    // coll_hieragg_cost_<link>_theta set explicitly: the burst cost (and the node's theta) stay.
    bool thetaExplicit = false;
    // coll_hieragg_cost_network_exchange set explicitly: the measured exchange round is unused.
    bool exchangeExplicit = false;
};

// Whether a measurement can change anything: off, a rules file, or both parameters set
// explicitly means no measurement (today's behaviour).
bool calibrationWanted(const CalibrationPolicy& policy);

// The band of CostParams::closeFraction a measurement with this noise gives: the noise,
// within [kMinCloseFraction, kMaxCloseFraction]; 0 for a value without a noise (0: given,
// not measured by two ends, e.g. a test's or a carried record's of an older process).
constexpr double kMinCloseFraction = 0.05, kMaxCloseFraction = 0.25;
double closeFractionOf(const MeasuredLink& m);

// Replaces p.link[link]'s alpha and beta by the measurement, each unless set explicitly;
// nothing when the policy wants no calibration or the measurement is invalid. The burst,
// exchange round, rendezvous and band below apply to either link class. Inside a node
// (link kLinkNode) the measured back-to-back gap is also the model's theta, unless theta
// was set explicitly: no wire separates two messages of a stream there, so the gap is
// the PML's work for one more message, which a root pays per child of a flat tree (the
// network's theta stays coll_hieragg_cost_network_theta). For the
// network link, an offloaded round (p.offload) crosses the same network: where the
// measurement makes the network slower than p said, the offload's alpha/beta (unless set
// explicitly) grow by the same factor, so the offload keeps its standing against
// point-to-point (with the defaults, offload=auto never opens; docs/offload.md).
// The cost of each further message of a burst crossing the network (LinkCost::burst_us)
// becomes the measured back-to-back gap, or without one grows by the alpha's factor, unless
// theta was set explicitly. The network's exchange round (LinkCost::exchange_us) becomes
// the measured one unless set explicitly; with alpha set explicitly it keeps the measured
// ratio to the measured alpha. The both-directions rate (LinkCost::duplex_beta_us_per_byte)
// becomes the measured one, or with beta set explicitly keeps its measured ratio to beta. A measured rendezvous (with its eager limit) is taken unless
// beta was set explicitly, and the chooser's band of close predictions
// (CostParams::closeFraction) becomes closeFractionOf(m).
void applyMeasuredLink(CostParams& p, int link, const MeasuredLink& m, const CalibrationPolicy& policy);

}  // namespace hieragg::hier
