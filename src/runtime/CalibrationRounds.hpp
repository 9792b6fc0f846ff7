// The rounds one end of a calibration pair runs, in order: ping-pongs of every size, streams
// of small messages, exchange rounds and, between nodes, rounds both ways at once. What each
// kind measures is said at its count below; LinkCalibrationStage runs them and estimates.
#pragma once
#include <cstddef>
#include <vector>

namespace hieragg::calibration {

// Each end of a pair times kReps round trips of every size of hier::calibrationSizes above
// the eager limit and kSmallReps of those below it (LinkCalibration.hpp), the two ends in
// turn and the sizes interleaved, so a burst of load delays samples of every size and both
// ends rather than all of one; a back-to-back stream of kStreamMessages small messages per
// rep, then kExchangeRounds rounds in which both send at once. On the 50 us / 1 Gbit/s
// emulated link about 2 x (8 x (0.1 + 0.25 + 0.4 + 0.2) + 4 x (1.3 + 2.4)) ms = 45 ms. The minimum per size drops
// whatever a busy machine adds (samples of 140 us to 9 ms were seen for that link).
inline constexpr int kReps = 4;
// The sizes below the eager limit and the stream are cheap: twice as many of them.
inline constexpr int kSmallReps = 8;
inline constexpr size_t kSmallBytes = 8;
inline constexpr int kStreamMessages = 8;
// Both ends send 8 B and receive 8 B at once, each round when the last one's message
// arrived: what one dissemination / butterfly round costs when every leader sends and
// receives across the network together (every pair measures at once).
inline constexpr int kExchangeRounds = 8;
// Between nodes, then rounds in which both ends send the largest size at once: the rate each
// way while both directions carry data, as every step of a ring or an exchange across the
// network loads them (LinkCost::duplex_beta_us_per_byte). Four rounds: three neighbouring
// means (hier::estimateDuplexBeta); on the 50 us / 1 Gbit/s link about 4 x 2.5 ms.
inline constexpr int kDuplexRounds = 4;
struct Round {
    enum Kind { PingPong, Stream, Exchange, Duplex } kind;
    size_t bytes;
    int side;  // which end times it: 0 the lower index of the pair, 1 the upper
};

// Every round of one pass: kSmallReps reps of the sizes (those at or past the eager limit
// only kReps times), each side in turn, each rep with a stream from each side; then the
// exchange rounds and, with `duplex`, the duplex rounds of the largest size.
std::vector<Round> roundPlan(const std::vector<size_t>& sizes, size_t eagerBytes, bool duplex);

}  // namespace hieragg::calibration
