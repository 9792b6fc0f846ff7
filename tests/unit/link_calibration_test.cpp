// Automatic calibration of the node and network links (LinkCalibration.hpp): the estimator
// against round trips generated from a known link (alpha, both betas, the rendezvous),
// contaminated by load, the two ends' agreement, the agreement (median, the
// same on every rank), the override rules (off, rules file, explicit MCA values), and
// the model's choice on 2 nodes x 4 ranks with the defaults vs a measured slow link.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ReductionFixture.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/LinkCalibration.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;
using namespace hieragg::testing;
using hier::MeasuredLink;

namespace {
MeasuredLink link(double a, double b) {
    MeasuredLink m;
    m.valid = true;
    m.alpha_us = a;
    m.beta_ns_per_byte = b;
    return m;
}

// A link with a rendezvous past its eager limit E: one way, m bytes cost alpha + m beta_e
// below E, alpha + rdv + m beta_b at or above it; a round trip is m there and 8 B back.
struct Link {
    double alpha, betaEager, betaBulk, rdv;
    size_t eager;
    double oneWay(size_t m) const {
        const double x = static_cast<double>(m);
        return m >= eager ? alpha + rdv + x * betaBulk / 1000 : alpha + x * betaEager / 1000;
    }
    double rtt(size_t m) const { return oneWay(m) + oneWay(8); }
};

// Sample sets of each size as both ends of a pair time them: `reps` round trips each, every
// one delayed by a jitter in [0, jitterUs) and, with probability spikeShare, by a load
// spike of 0.2-10 ms (a descheduled process); the first sample of a size always spiked
// (the connection opening), and two samples of each size left unspiked (the floor seen
// twice: the estimator takes a floor as known when its two smallest samples agree).
std::vector<hier::RoundTrips> samples(const Link& l, int reps, double jitterUs, double spikeShare, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<hier::RoundTrips> out;
    for (size_t m : hier::calibrationSizes(l.eager)) {
        hier::RoundTrips r{m, {}};
        const int clean = 1 + static_cast<int>(gen() % static_cast<unsigned>(reps - 1));
        const int clean2 = 1 + (clean % (reps - 1));  // another of 1..reps-1
        for (int i = 0; i < reps; ++i) {
            double t = l.rtt(m) + jitterUs * u(gen);
            if (i == 0 || (i != clean && i != clean2 && u(gen) < spikeShare)) t += 200 + 9800 * u(gen);
            r.us.push_back(t);
        }
        out.push_back(r);
    }
    return out;
}

// The emulated cluster's link (50 us + TCP, 1 Gbit/s: 8.6 ns/B) with a 200 us handshake
// past TCP's 64 KiB, and an unshaped one whose bulk rate beats its eager copies.
const Link kEmulated{84.0, 8.6, 8.6, 200.0, 65536};
const Link kUnshaped{30.0, 7.2, 1.7, 150.0, 65536};
}  // namespace

TEST(LinkCalibration, SizesStraddleTheEagerLimit) {
    EXPECT_EQ(hier::calibrationSizes(65536), (std::vector<size_t>{8, 16384, 32768, 131072, 262144}));
    EXPECT_EQ(hier::calibrationSizes(4096), (std::vector<size_t>{8, 1024, 2048, 8192, 16384}));
    // Unknown: below 32 KiB only; huge: the sizes below as for 512 KiB, none above.
    EXPECT_EQ(hier::calibrationSizes(0), (std::vector<size_t>{8, 16384, 32768}));
    EXPECT_EQ(hier::calibrationSizes(size_t{4} << 20), (std::vector<size_t>{8, 131072, 262144}));
    // The node link's pass: on by fours from 4E to 1 MiB; a limit already past it adds nothing.
    EXPECT_EQ(hier::calibrationSizes(4096, hier::kNodeLargestBytes),
              (std::vector<size_t>{8, 1024, 2048, 8192, 16384, 65536, 262144, 1048576}));
    EXPECT_EQ(hier::calibrationSizes(65536, 262144), hier::calibrationSizes(65536));
    EXPECT_EQ(hier::calibrationSizes(0, 100000), (std::vector<size_t>{8, 16384, 32768, 100000}));
}

// Shared memory on a crowded node: 0.15 ns/B, alpha 25 us, no handshake past vader's 4 KiB,
// each floor confirmed by a second sample 1 us above it, and 8 KiB's floor 10 us late (a
// hand-off). Up to 16 KiB the bulk line is 8 KiB and 16 KiB alone: its slope
// (16384 x 0.15e-3 - 10) / 8192 falls, and no rate comes out. Up to 1 MiB the least-squares
// slope over the five bulk sizes is off by the late floor's pull, 10 (x_8K - mean x) / Sxx,
// a closed form from the sizes alone.
TEST(LinkCalibration, NodeSizesUpToAMebibyteMeasureTheCopyRate) {
    const Link shm{25.0, 0.15, 0.15, 0.0, 4096};
    const auto floors = [&](const std::vector<size_t>& sizes) {
        std::vector<hier::RoundTrips> r;
        for (size_t m : sizes) {
            const double late = m == 8192 ? 10.0 : 0.0;
            r.push_back({m, {shm.rtt(m) + late + 1.0, shm.rtt(m) + late}});
        }
        return r;
    };
    std::string why;
    const hier::MeasuredLink shortLadder = hier::estimateLink(floors(hier::calibrationSizes(4096)), 8, 4096, &why);
    EXPECT_FALSE(shortLadder.valid && std::fabs(shortLadder.beta_ns_per_byte - 0.15) < 0.25 * 0.15)
        << shortLadder.beta_ns_per_byte;
    const std::vector<size_t> sizes = hier::calibrationSizes(4096, hier::kNodeLargestBytes);
    const hier::MeasuredLink m = hier::estimateLink(floors(sizes), 8, 4096, &why);
    ASSERT_TRUE(m.valid) << why;
    double mean = 0, sxx = 0;
    const std::vector<double> bulk = {8192, 16384, 65536, 262144, 1048576};
    for (double x : bulk) mean += x / bulk.size();
    for (double x : bulk) sxx += (x - mean) * (x - mean);
    const double expected = 0.15 + 1000.0 * 10.0 * (8192 - mean) / sxx;  // ns/B
    EXPECT_NEAR(m.beta_ns_per_byte, expected, 1e-9);
    EXPECT_NEAR(m.beta_ns_per_byte, 0.15, 0.1 * 0.15);
}

// Load spikes on most samples, two clean samples per size: the minima are the
// link's own round trips and the fit recovers the closed forms exactly.
TEST(LinkCalibration, EstimatorRecoversTheLinkThroughLoadSpikes) {
    for (const Link& l : {kEmulated, kUnshaped})
        for (unsigned seed = 1; seed <= 20; ++seed) {
            const hier::MeasuredLink m = hier::estimateLink(samples(l, 4, 0, 0.7, seed), 8, l.eager);
            ASSERT_TRUE(m.valid) << seed;
            EXPECT_NEAR(m.alpha_us, l.alpha, 1e-6) << seed;
            EXPECT_NEAR(m.eager_beta_ns_per_byte, l.betaEager, 1e-6) << seed;
            EXPECT_NEAR(m.beta_ns_per_byte, l.betaBulk, 1e-6) << seed;
            EXPECT_NEAR(m.rendezvous_us, l.rdv, 1e-6) << seed;
            EXPECT_EQ(m.eager_bytes, 65536.0);
        }
}

// Every sample also jittered by up to J = 5 us: the stated tolerance, from the fit's
// weights, is |d alpha| <= J, |d beta_e| <= 2 J / (E/2 - 8), |d beta_b| <= 2 J / (2E),
// |d rdv| <= 6 J + 4E |d beta_b| (the bulk line's intercept moves by at most J plus its
// slope's error times the first bulk size, alpha twice).
TEST(LinkCalibration, EstimatorStaysWithinTheJitterBound) {
    const double J = 5;
    const double E = 65536;
    for (const Link& l : {kEmulated, kUnshaped})
        for (unsigned seed = 1; seed <= 20; ++seed) {
            const hier::MeasuredLink m = hier::estimateLink(samples(l, 4, J, 0.5, seed), 8, l.eager);
            ASSERT_TRUE(m.valid) << seed;
            const double dBulk = 2 * J / (2 * E) * 1000;
            EXPECT_NEAR(m.alpha_us, l.alpha, J) << seed;
            EXPECT_NEAR(m.eager_beta_ns_per_byte, l.betaEager, 2 * J / (E / 2 - 8) * 1000) << seed;
            EXPECT_NEAR(m.beta_ns_per_byte, l.betaBulk, dBulk) << seed;
            EXPECT_NEAR(m.rendezvous_us, l.rdv, 6 * J + 4 * E * dBulk / 1000) << seed;
        }
}

// Load on the long round trips only (issue 18): below the limit the samples are as above
// (jitter J = 5 us, spikes, two clean per size), but every sample of the two sizes above it
// was delayed, 128 KiB's by D1 + 0, 600, 1300, 2000 us and 256 KiB's by D2 + 0, 750, 1500,
// 2200 us with D1 - D2 >= 850 us: the minima's slope is 8.6 - (D1 - D2) / 131.072 ns/B,
// under 2.1 (CI measured 0.95 ns/B for this link). Their floors are not confirmed (their
// two smallest samples 600 and 750 us apart: the slope known to within 10 ns/B), the eager
// one is (to 2 J / (E/2 - 8) = 0.31 ns/B): the eager rate stands, so beta and alpha are
// within the jitter bound of the link's, the rendezvous is the smallest excess (at least
// the link's, D2 + J over it at most), the note says the bulk line was set aside and the
// noise is at least the eager slope's relative uncertainty, at most its bound.
TEST(LinkCalibration, BulkSizesAllDelayedLeaveTheEagerRate) {
    const double J = 5, E = 65536;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::vector<hier::RoundTrips> r = samples(kEmulated, 8, J, 0.5, seed);
        std::mt19937 gen(seed);
        std::uniform_real_distribution<double> u(0, 1);
        const double d1 = 900 + 1100 * u(gen), d2 = 50 + (d1 - 900) * u(gen);
        ASSERT_EQ(r.size(), 5u);
        r[3].us.clear(), r[4].us.clear();
        for (double d : {2000.0, 0.0, 1300.0, 600.0}) r[3].us.push_back(kEmulated.rtt(131072) + d1 + d);
        for (double d : {750.0, 2200.0, 0.0, 1500.0}) r[4].us.push_back(kEmulated.rtt(262144) + d2 + d);
        std::string note;
        const hier::MeasuredLink m = hier::estimateLink(r, 8, 65536, nullptr, &note);
        ASSERT_TRUE(m.valid) << seed;
        const double dEager = 2 * J / (E / 2 - 8) * 1000;
        EXPECT_NEAR(m.alpha_us, kEmulated.alpha, J) << seed;
        EXPECT_NEAR(m.eager_beta_ns_per_byte, kEmulated.betaEager, dEager) << seed;
        EXPECT_NEAR(m.beta_ns_per_byte, kEmulated.betaBulk, dEager) << seed;
        EXPECT_GE(m.rendezvous_us, kEmulated.rdv - 2 * J - E * 4 * dEager / 1000) << seed;
        EXPECT_LE(m.rendezvous_us, kEmulated.rdv + d2 + 2 * J + E * 4 * dEager / 1000) << seed;
        EXPECT_NE(note.find("bulk slope"), std::string::npos) << note;
        EXPECT_NE(note.find("eager rate"), std::string::npos) << note;
        EXPECT_GT(m.noise, 0) << seed;
        EXPECT_LE(m.noise, std::max(dEager / kEmulated.betaEager, J / kEmulated.alpha)) << seed;  // intercept weights sum under 2
    }
}

// The same bulk sizes with their floors confirmed (two samples within J of each): the bulk
// line is used as before, kUnshaped's 1.7 ns/B above the limit beside 7.2 below it, and
// nothing is noted.
TEST(LinkCalibration, ConfirmedBulkFloorsKeepTheBulkRate) {
    const double J = 5, E = 65536;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::string note;
        const hier::MeasuredLink m = hier::estimateLink(samples(kUnshaped, 4, J, 0.7, seed), 8, 65536, nullptr, &note);
        ASSERT_TRUE(m.valid) << seed;
        EXPECT_NEAR(m.beta_ns_per_byte, kUnshaped.betaBulk, 2 * J / (2 * E) * 1000) << seed;
        EXPECT_NEAR(m.eager_beta_ns_per_byte, kUnshaped.betaEager, 2 * J / (E / 2 - 8) * 1000) << seed;
        EXPECT_TRUE(note.empty()) << note;
    }
}

// Every size's two smallest round trips 1.2 ms apart (load on all of them): the eager slope
// is known to within 1200 us x (|8 - mean x| + |32768 - mean x|) / Sxx = 73 ns/B (850% of
// 8.6; Sxx = 5.366e8 B^2, the middle size's weight about 0), the bulk one to within
// 2 x 1200 us / 131072 B = 18 ns/B (213%). The eager rate is not known within itself, so the
// estimate is rejected (the setup measures once more), though the floors happen to be
// exact: nothing in the samples says so.
TEST(LinkCalibration, FloorsSpreadBeyondTheRateAreRejected) {
    std::vector<hier::RoundTrips> r;
    for (size_t m : hier::calibrationSizes(kEmulated.eager))
        r.push_back({m, {kEmulated.rtt(m) + 1200, kEmulated.rtt(m) + 5000, kEmulated.rtt(m)}});
    std::string why;
    EXPECT_FALSE(hier::estimateLink(r, 8, kEmulated.eager, &why).valid);
    EXPECT_NE(why.find("not known within itself"), std::string::npos) << why;
    // The stage's last attempt keeps it (exact here), its noise alpha's: the intercept's
    // weights are 5/6, 1/3, 1/6 (8 B, E/4, E/2), so 4/3 x 1200 us / 2 of 84 us: 950%.
    const hier::MeasuredLink last = hier::estimateLink(r, 8, kEmulated.eager, &why, nullptr, false);
    ASSERT_TRUE(last.valid) << why;
    EXPECT_NEAR(last.eager_beta_ns_per_byte, kEmulated.betaEager, 1e-6);
    EXPECT_NEAR(last.noise, (5.0 / 6 + 1.0 / 3 + 1.0 / 6) * 1200 / 2 / kEmulated.alpha, 0.01);
    // 100 us apart below the limit and 300 us above it instead: the eager slope is known to
    // 6.1 ns/B (71%), the bulk one to 4.6 ns/B (53%): neither within the band, both within
    // themselves. The lines stand as measured (exact here: the floors are), nothing is set
    // aside, and the noise is at least the eager slope's.
    for (hier::RoundTrips& t : r) t.us[0] = kEmulated.rtt(t.bytes) + (t.bytes >= kEmulated.eager ? 300 : 100);
    std::string note;
    const hier::MeasuredLink m = hier::estimateLink(r, 8, kEmulated.eager, &why, &note);
    ASSERT_TRUE(m.valid) << why;
    EXPECT_NEAR(m.alpha_us, kEmulated.alpha, 1e-6);
    EXPECT_NEAR(m.beta_ns_per_byte, kEmulated.betaBulk, 1e-6);
    EXPECT_NEAR(m.eager_beta_ns_per_byte, kEmulated.betaEager, 1e-6);
    EXPECT_GE(m.noise, 100.0 * (2 * 16378.67 / 5.3661e8) * 1000 / kEmulated.betaEager * 0.999);
    EXPECT_TRUE(note.empty()) << note;
}

// The failure seen under load: every 8 B round trip delayed by 2.8 ms (alpha 1420 us, and
// the larger sizes' minima below the small one's). The old estimator floored beta at
// 0.01 ns/B and kept it; now the line falls and the estimate is rejected, saying why.
// Every sample of the smallest size delayed (2.8 ms): the line below the eager limit falls.
// With two sizes above the limit their rate prices the small sizes' bytes too, and the
// start-up is the smallest of the small sizes net of it: the link comes out exactly
// (kEmulated: alpha 84 us, 8.6 ns/B, rendezvous 200 us). Without sizes above the limit
// (the eager limit unknown) the falling line is rejected.
TEST(LinkCalibration, EstimatorRejectsALineThatFalls) {
    std::vector<hier::RoundTrips> r = samples(kEmulated, 4, 0, 0, 3);
    for (double& t : r[0].us) t += 2800;
    std::string why;
    const hier::MeasuredLink bulk = hier::estimateLink(r, 8, 65536, &why);
    ASSERT_TRUE(bulk.valid) << why;
    EXPECT_NEAR(bulk.alpha_us, kEmulated.alpha, 1e-6);
    EXPECT_NEAR(bulk.beta_ns_per_byte, kEmulated.betaBulk, 1e-9);
    EXPECT_NEAR(bulk.eager_beta_ns_per_byte, kEmulated.betaBulk, 1e-9);
    EXPECT_NEAR(bulk.rendezvous_us, kEmulated.rdv, 1e-6);
    r.resize(3);  // 8 B, 16 KiB, 32 KiB: below the limit only
    const hier::MeasuredLink m = hier::estimateLink(r, 8, 65536, &why);
    EXPECT_FALSE(m.valid);
    EXPECT_NE(why.find("beta"), std::string::npos) << why;
    EXPECT_NE(why.find("outside"), std::string::npos) << why;
}

// A shared-memory link (alpha 0.3 us, 0.1 ns/B, a 1 us handshake past the 4 KiB eager
// limit) whose small sizes differ by less than their noise: 1 KiB's minimum came out
// 0.5 us under 8 B's, so the line below the limit falls. The sizes above it give beta, and
// alpha is the smallest small size net of its bytes at that rate: 8 B's, exactly.
TEST(LinkCalibration, SmallSizesWithinTheNoiseTakeTheBulkRate) {
    const Link shm{0.3, 0.1, 0.1, 1.0, 4096};
    std::vector<hier::RoundTrips> r;
    // Two samples a size, the second 0.01 us over the link: every floor confirmed.
    for (size_t m : hier::calibrationSizes(shm.eager)) r.push_back({m, {shm.rtt(m) + 0.01, shm.rtt(m)}});
    ASSERT_EQ(r[0].bytes, 8u);
    ASSERT_EQ(r[1].bytes, 1024u);
    for (double& t : r[0].us) t += 0.6;  // 8 B: 0.6 us of noise on every sample
    std::string why;
    const hier::MeasuredLink m = hier::estimateLink(r, 8, shm.eager, &why);
    ASSERT_TRUE(m.valid) << why;
    EXPECT_NEAR(m.beta_ns_per_byte, 0.1, 1e-9);
    // min over 8 B (rtt + 0.6), 1 KiB and 2 KiB (rtt) of (RTT - (m + 8) beta) / 2 = alpha.
    EXPECT_NEAR(m.alpha_us, 0.3, 1e-9);
    EXPECT_NEAR(m.rendezvous_us, 1.0, 1e-9);
}

TEST(LinkCalibration, EstimatorRefusesMissingOrNonsenseSamples) {
    std::string why;
    EXPECT_FALSE(hier::estimateLink({}, 8, 65536, &why).valid);
    EXPECT_NE(why.find("fewer than two sizes"), std::string::npos) << why;
    EXPECT_FALSE(hier::estimateLink({{8, {100.0}}}, 8, 65536).valid);
    // Non-finite and non-positive samples are dropped: one size left.
    EXPECT_FALSE(hier::estimateLink({{8, {100.0}}, {16384, {NAN, -1.0, 0.0}}}, 8, 65536).valid);
    // Alpha outside its bounds: a clock that stepped (negative), or 50 ms.
    EXPECT_FALSE(hier::estimateLink({{8, {-10.0}}, {16384, {200.0}}}, 8, 65536).valid);
    EXPECT_FALSE(hier::estimateLink({{8, {100000.0}}, {16384, {100200.0}}}, 8, 65536, &why).valid);
    EXPECT_NE(why.find("alpha"), std::string::npos) << why;
    // Without sizes above the limit: beta is the eager one, no rendezvous.
    const hier::MeasuredLink two = hier::estimateLink({{8, {100.0}}, {16392, {263.84}}}, 8, 65536);
    ASSERT_TRUE(two.valid);
    EXPECT_NEAR(two.eager_beta_ns_per_byte, 10.0, 1e-9);
    EXPECT_NEAR(two.beta_ns_per_byte, 10.0, 1e-9);
    EXPECT_NEAR(two.alpha_us, (100.0 - 16 * 0.01) / 2, 1e-9);  // RTT(8) = 2 alpha + 16 beta
    EXPECT_EQ(two.eager_bytes, 0.0);
    EXPECT_EQ(two.rendezvous_us, 0.0);
}

// The back-to-back gap: (min stream - min single) / (count - 1), within 0..alpha.
TEST(LinkCalibration, BurstIsTheGapOfAStream) {
    EXPECT_DOUBLE_EQ(hier::estimateBurst({270, 5000, 240}, {3000, 170, 180}, 8, 84), 10.0);
    EXPECT_DOUBLE_EQ(hier::estimateBurst({150}, {170}, 8, 84), 0.0);  // never negative
    EXPECT_DOUBLE_EQ(hier::estimateBurst({2100}, {170}, 8, 84), 84.0);  // never over alpha: load
    EXPECT_DOUBLE_EQ(hier::estimateBurst({}, {170}, 8, 84), 0.0);
    EXPECT_DOUBLE_EQ(hier::estimateBurst({240}, {}, 8, 84), 0.0);
    EXPECT_DOUBLE_EQ(hier::estimateBurst({240}, {170}, 1, 84), 0.0);
}

// Load on every long round trip (the 3 x 2 emulated entry at load 23 measured a bulk slope
// of 73 ns/B on the 1 Gbit/s link): a bulk line slower per byte than the eager one is not
// the link's. beta stays the eager one, the rendezvous is the smallest excess over it.
TEST(LinkCalibration, BulkSlowerThanEagerIsLoad) {
    std::vector<hier::RoundTrips> r = samples(kEmulated, 4, 0, 0, 5);
    ASSERT_EQ(r.size(), 5u);
    for (double& t : r[4].us) t += 9000;  // every 256 KiB round trip 9 ms late
    for (double& t : r[3].us) t += 300;   // every 128 KiB one 0.3 ms late
    const hier::MeasuredLink m = hier::estimateLink(r, 8, 65536);
    ASSERT_TRUE(m.valid);
    EXPECT_NEAR(m.alpha_us, kEmulated.alpha, 1e-6);
    EXPECT_NEAR(m.beta_ns_per_byte, kEmulated.betaEager, 1e-6);
    EXPECT_NEAR(m.rendezvous_us, kEmulated.rdv + 300, 1e-6);
    // Within the slack (1.25x the eager rate) the bulk line stands.
    const Link slower{84.0, 8.6, 10.0, 200.0, 65536};
    const hier::MeasuredLink s = hier::estimateLink(samples(slower, 4, 0, 0, 5), 8, 65536);
    EXPECT_NEAR(s.beta_ns_per_byte, 10.0, 1e-6);
    EXPECT_NEAR(s.rendezvous_us, 200.0, 1e-6);
}

// The two ends of a pair time the same link: close, their mean and the spread as noise;
// more than a factor 2 apart, the end with the smaller alpha (the less loaded) whole, with
// the spread as noise; an end without a valid estimate invalidates the pair.
TEST(LinkCalibration, PairEndsAgreeOrTheLessLoadedEndIsKept) {
    hier::MeasuredLink a = link(100, 8), b = link(120, 10);
    a.rendezvous_us = 200, b.rendezvous_us = 100, a.eager_bytes = b.eager_bytes = 65536;
    a.burst_us = 6, b.burst_us = 8;
    const hier::MeasuredLink m = hier::combinePair(a, b);
    ASSERT_TRUE(m.valid);
    EXPECT_DOUBLE_EQ(m.alpha_us, 110);
    EXPECT_DOUBLE_EQ(m.beta_ns_per_byte, 9);
    EXPECT_DOUBLE_EQ(m.rendezvous_us, 150);
    EXPECT_DOUBLE_EQ(m.burst_us, 7);
    EXPECT_DOUBLE_EQ(m.noise, 0.25);  // beta: (10 - 8) / 8
    std::string why;
    hier::MeasuredLink slow = link(250, 3), fast = link(100, 8);
    slow.burst_us = 40, fast.burst_us = 5;
    const hier::MeasuredLink alphaApart = hier::combinePair(slow, fast, &why);
    ASSERT_TRUE(alphaApart.valid);
    EXPECT_DOUBLE_EQ(alphaApart.alpha_us, 100);  // the smaller alpha's end, whole
    EXPECT_DOUBLE_EQ(alphaApart.beta_ns_per_byte, 8);
    EXPECT_DOUBLE_EQ(alphaApart.burst_us, 5);
    EXPECT_DOUBLE_EQ(alphaApart.noise, 5.0 / 3);  // beta (8 - 3) / 3, over alpha's (250 - 100) / 100
    EXPECT_NE(why.find("alpha 250 vs 100"), std::string::npos) << why;
    why.clear();
    const hier::MeasuredLink betaApart = hier::combinePair(link(90, 17), link(100, 8), &why);
    ASSERT_TRUE(betaApart.valid);
    EXPECT_DOUBLE_EQ(betaApart.alpha_us, 90);
    EXPECT_DOUBLE_EQ(betaApart.beta_ns_per_byte, 17);
    EXPECT_DOUBLE_EQ(betaApart.noise, 9.0 / 8);  // beta: (17 - 8) / 8
    EXPECT_NE(why.find("beta 17 vs 8"), std::string::npos) << why;
    why.clear();
    EXPECT_FALSE(hier::combinePair(link(100, 8), MeasuredLink{}, &why).valid);
    EXPECT_EQ(why, "") << "an invalid end is no disagreement";
    EXPECT_TRUE(hier::combinePair(link(100, 8), link(110, 9), &why).valid);
    EXPECT_EQ(why, "") << "ends that agree are no disagreement";
    EXPECT_FALSE(hier::combinePair(MeasuredLink{}, link(100, 8)).valid);
}

// Ends that disagree, each with its own fit's noise: the better known end is kept whole even
// with the larger alpha (the other's slope was steepened by load, its alpha pulled down:
// 14.5 us at 48.5 ns/B, noise 282%, beside 96.8 us at 14.9 ns/B, noise 59%), its noise
// the larger of the spreads and the ends' own.
TEST(LinkCalibration, PairEndsDisagreeingKeepTheBetterKnownEnd) {
    MeasuredLink steep = link(14.5, 48.5), known = link(96.8, 14.9);
    steep.noise = 2.82, known.noise = 0.59;
    std::string why;
    for (const auto& [a, b] : {std::pair{steep, known}, std::pair{known, steep}}) {
        const MeasuredLink m = hier::combinePair(a, b, &why);
        ASSERT_TRUE(m.valid);
        EXPECT_EQ(m.alpha_us, 96.8);
        EXPECT_EQ(m.beta_ns_per_byte, 14.9);
        EXPECT_DOUBLE_EQ(m.noise, (96.8 - 14.5) / 14.5);  // alpha's spread, over 2.82
        EXPECT_NE(why.find("disagree"), std::string::npos) << why;
    }
}

// Every measured field survives the records the ranks exchange.
TEST(LinkCalibration, RecordCarriesEveryField) {
    hier::MeasuredLink m = link(84, 8.6);
    m.exchange_us = 170, m.eager_beta_ns_per_byte = 9.1, m.rendezvous_us = 210, m.eager_bytes = 65536;
    m.burst_us = 7.5, m.noise = 0.12, m.duplex_beta_ns_per_byte = 17.5;
    const hier::MeasuredLink back = hier::fromRecord(hier::toRecord(m));
    EXPECT_TRUE(back.valid);
    for (auto f : {&MeasuredLink::alpha_us, &MeasuredLink::beta_ns_per_byte, &MeasuredLink::exchange_us,
                   &MeasuredLink::eager_beta_ns_per_byte, &MeasuredLink::rendezvous_us, &MeasuredLink::eager_bytes,
                   &MeasuredLink::burst_us, &MeasuredLink::noise, &MeasuredLink::duplex_beta_ns_per_byte})
        EXPECT_EQ(back.*f, m.*f);
    EXPECT_FALSE(hier::fromRecord(hier::toRecord(MeasuredLink{})).valid);
    EXPECT_FALSE(hier::fromRecord(hier::toRecord(MeasuredLink{})).rejected);
    // Rejected twice: carried as such, so later communicators do not measure again; a valid
    // record of another rank wins over it, nothing at all is neither.
    MeasuredLink no;
    no.rejected = true;
    const MeasuredLink noBack = hier::fromRecord(hier::toRecord(no));
    EXPECT_FALSE(noBack.valid);
    EXPECT_TRUE(noBack.rejected);
    EXPECT_TRUE(hier::agreeLink({MeasuredLink{}, noBack, MeasuredLink{}}).rejected);
    const MeasuredLink mixed = hier::agreeLink({noBack, link(80, 9)});
    EXPECT_TRUE(mixed.valid);
    EXPECT_FALSE(mixed.rejected);
    EXPECT_DOUBLE_EQ(mixed.alpha_us, 80);
    EXPECT_FALSE(hier::agreeLink({MeasuredLink{}, MeasuredLink{}}).rejected);
}

// Rounds in which both ends send 256 KiB at once on a link of exchange round E = 100 us, a
// rendezvous of 200 us and 20 ns/B each way with both directions busy take E + 200 + 262144 x
// 20 / 1000 = 5542.88 us: the smallest mean of neighbouring rounds, less the exchange round and
// the rendezvous, per byte. A first round 9 ms late and a pair of rounds 1 ms late do not
// count; a rate under the one-way beta is the one-way beta (both ways at once are never
// faster per direction); no neighbouring pair or no bytes: not measured.
TEST(LinkCalibration, DuplexRateFromRoundsBothWays) {
    const double bytes = 262144, round = 100 + 200 + bytes * 20 / 1000;
    EXPECT_NEAR(hier::estimateDuplexBeta({round + 9000, round + 40, round - 40, round + 1000, round + 1000}, bytes,
                                         100, 200, 8.6),
                20.0, 1e-9);
    EXPECT_NEAR(hier::estimateDuplexBeta({round, round}, bytes, 100, 0, 8.6), 20.0 + 200 * 1000 / bytes, 1e-9);
    EXPECT_DOUBLE_EQ(hier::estimateDuplexBeta({400, 400}, bytes, 100, 200, 8.6), 8.6);
    EXPECT_DOUBLE_EQ(hier::estimateDuplexBeta({round}, bytes, 100, 200, 8.6), 0.0);
    EXPECT_DOUBLE_EQ(hier::estimateDuplexBeta({round, round}, 0, 100, 200, 8.6), 0.0);
}

// The both-directions rate: the pair's mean (one end's when only it measured one), the
// median over the pairs; applied to the link as measured (never under its beta), with beta
// set explicitly in the measured ratio to it, and not at all when not measured.
TEST(LinkCalibration, DuplexRateAgreedAndApplied) {
    hier::MeasuredLink a = link(100, 8), b = link(110, 9);
    a.duplex_beta_ns_per_byte = 16, b.duplex_beta_ns_per_byte = 20;
    EXPECT_DOUBLE_EQ(hier::combinePair(a, b).duplex_beta_ns_per_byte, 18);
    b.duplex_beta_ns_per_byte = 0;
    EXPECT_DOUBLE_EQ(hier::combinePair(a, b).duplex_beta_ns_per_byte, 16);
    hier::MeasuredLink c = link(90, 8), d = link(95, 8), e = link(99, 8);
    c.duplex_beta_ns_per_byte = 12, d.duplex_beta_ns_per_byte = 30;
    EXPECT_DOUBLE_EQ(hier::agreeLink({c, d, e}).duplex_beta_ns_per_byte, 21);  // e measured none
    hier::CostParams p = hier::CostParams::defaults();
    hier::applyMeasuredLink(p, hier::kLinkNetwork, a, {});
    EXPECT_DOUBLE_EQ(hier::duplexBetaUs(p.link[hier::kLinkNetwork]), 0.016);
    hier::CalibrationPolicy set;
    set.betaExplicit = true;
    hier::CostParams q = hier::CostParams::defaults();
    const double explicitBeta = q.link[hier::kLinkNetwork].beta_us_per_byte;
    hier::applyMeasuredLink(q, hier::kLinkNetwork, a, set);
    EXPECT_DOUBLE_EQ(hier::duplexBetaUs(q.link[hier::kLinkNetwork]), explicitBeta * 16 / 8);
    hier::CostParams r = hier::CostParams::defaults();
    hier::applyMeasuredLink(r, hier::kLinkNetwork, link(100, 8), {});
    EXPECT_DOUBLE_EQ(hier::duplexBetaUs(r.link[hier::kLinkNetwork]), r.link[hier::kLinkNetwork].beta_us_per_byte);
    // Set in a parameters file (MCA units, ns/B).
    hier::CostParams f = hier::CostParams::defaults();
    EXPECT_TRUE(hier::setCostParam(f, "coll_hieragg_cost_network_duplex", 25));
    EXPECT_DOUBLE_EQ(hier::duplexBetaUs(f.link[hier::kLinkNetwork]), 0.025);
}

// What a measurement sets beyond alpha/beta: the rendezvous with its limit (unless beta was
// set explicitly), the burst (unless theta was), and the chooser's band from the noise.
TEST(LinkCalibration, RendezvousBurstAndBandApplied) {
    hier::MeasuredLink m = link(84, 8.6);
    m.rendezvous_us = 210, m.eager_bytes = 65536, m.burst_us = 7.5, m.noise = 0.12;
    hier::CostParams p = hier::CostParams::defaults();
    EXPECT_EQ(p.closeFraction, 0.0);
    hier::applyMeasuredLink(p, hier::kLinkNetwork, m, {});
    const hier::LinkCost& n = p.link[hier::kLinkNetwork];
    EXPECT_EQ(n.rendezvous_us, 210);
    EXPECT_EQ(n.eager_bytes, 65536);
    EXPECT_EQ(hier::rendezvousUs(n, 65535), 0.0);
    EXPECT_EQ(hier::rendezvousUs(n, 65536), 210.0);
    EXPECT_EQ(hier::burstUs(n), 7.5);
    EXPECT_EQ(p.closeFraction, 0.12);
    // The band stays within 5..25%.
    m.noise = 0.001;
    EXPECT_EQ(hier::closeFractionOf(m), hier::kMinCloseFraction);
    m.noise = 3;
    EXPECT_EQ(hier::closeFractionOf(m), hier::kMaxCloseFraction);
    hier::CalibrationPolicy set;
    set.betaExplicit = set.thetaExplicit = true;
    hier::CostParams q = hier::CostParams::defaults();
    hier::applyMeasuredLink(q, hier::kLinkNetwork, m, set);
    EXPECT_EQ(q.link[hier::kLinkNetwork].eager_bytes, 0.0);
    EXPECT_EQ(hier::burstUs(q.link[hier::kLinkNetwork]), q.link[hier::kLinkNetwork].theta_us);
}

// Inside a node the measured back-to-back gap is the per-message cost itself: it becomes
// the node's theta as well as its burst; alpha, beta, the exchange round, the rendezvous and
// the band are applied as for the network. Nothing else changes: the network, numa and
// switch classes and the offload keep their values. An explicit theta keeps theta and
// burst; a measurement without a gap keeps theta.
TEST(LinkCalibration, NodeGapIsTheNodesTheta) {
    hier::MeasuredLink m = link(0.35, 0.12);
    m.burst_us = 0.3, m.exchange_us = 0.8, m.rendezvous_us = 1.5, m.eager_bytes = 4096, m.noise = 0.1;
    const hier::CostParams d = hier::CostParams::defaults();
    hier::CostParams p = d;
    hier::applyMeasuredLink(p, hier::kLinkNode, m, {});
    const hier::LinkCost& n = p.link[hier::kLinkNode];
    EXPECT_DOUBLE_EQ(n.alpha_us, 0.35);
    EXPECT_NEAR(n.beta_us_per_byte, 0.12 / 1000, 1e-15);
    EXPECT_DOUBLE_EQ(n.theta_us, 0.3);
    EXPECT_DOUBLE_EQ(hier::burstUs(n), 0.3);
    EXPECT_DOUBLE_EQ(hier::crossingUs(n, 7), 7 * 0.3);  // a root's 7 sends: 7 gaps
    EXPECT_DOUBLE_EQ(hier::exchangeRoundUs(n), 0.8);
    EXPECT_DOUBLE_EQ(hier::rendezvousUs(n, 4096), 1.5);
    EXPECT_DOUBLE_EQ(n.gamma_us_per_byte, d.link[hier::kLinkNode].gamma_us_per_byte);
    EXPECT_DOUBLE_EQ(p.closeFraction, 0.1);
    for (int l : {hier::kLinkNuma, hier::kLinkNetwork, hier::kLinkSwitch}) {
        EXPECT_DOUBLE_EQ(p.link[l].alpha_us, d.link[l].alpha_us) << l;
        EXPECT_DOUBLE_EQ(p.link[l].theta_us, d.link[l].theta_us) << l;
        EXPECT_DOUBLE_EQ(hier::burstUs(p.link[l]), hier::burstUs(d.link[l])) << l;
    }
    EXPECT_DOUBLE_EQ(p.offload.alpha_us, d.offload.alpha_us);
    EXPECT_DOUBLE_EQ(p.offload.beta_us_per_byte, d.offload.beta_us_per_byte);
    // coll_hieragg_cost_node_theta set: theta and the burst stay the MCA value.
    hier::CalibrationPolicy keepTheta;
    keepTheta.thetaExplicit = true;
    hier::CostParams q = d;
    hier::applyMeasuredLink(q, hier::kLinkNode, m, keepTheta);
    EXPECT_DOUBLE_EQ(q.link[hier::kLinkNode].theta_us, d.link[hier::kLinkNode].theta_us);
    EXPECT_DOUBLE_EQ(hier::burstUs(q.link[hier::kLinkNode]), d.link[hier::kLinkNode].theta_us);
    EXPECT_DOUBLE_EQ(q.link[hier::kLinkNode].alpha_us, 0.35);
    // No gap measured: theta stays; the network's theta never follows its gap.
    hier::CostParams r = d;
    hier::applyMeasuredLink(r, hier::kLinkNode, link(0.35, 0.12), {});
    EXPECT_DOUBLE_EQ(r.link[hier::kLinkNode].theta_us, d.link[hier::kLinkNode].theta_us);
    hier::MeasuredLink net = link(84, 8.6);
    net.burst_us = 7.5;
    hier::CostParams t = d;
    hier::applyMeasuredLink(t, hier::kLinkNetwork, net, {});
    EXPECT_DOUBLE_EQ(t.link[hier::kLinkNetwork].theta_us, d.link[hier::kLinkNetwork].theta_us);
    EXPECT_DOUBLE_EQ(hier::burstUs(t.link[hier::kLinkNetwork]), 7.5);
}

TEST(LinkCalibration, AgreementIsTheMedianOfValidMeasurements) {
    EXPECT_FALSE(hier::agreeLink({}).valid);
    EXPECT_FALSE(hier::agreeLink({MeasuredLink{}, MeasuredLink{}}).valid);
    const MeasuredLink one = hier::agreeLink({MeasuredLink{}, link(80, 9), MeasuredLink{}});
    ASSERT_TRUE(one.valid);
    EXPECT_DOUBLE_EQ(one.alpha_us, 80);
    EXPECT_DOUBLE_EQ(one.beta_ns_per_byte, 9);
    // Odd count: the middle value of each parameter separately (one outlier pair ignored).
    const MeasuredLink odd = hier::agreeLink({link(500, 8), link(82, 40), link(84, 9)});
    EXPECT_DOUBLE_EQ(odd.alpha_us, 84);
    EXPECT_DOUBLE_EQ(odd.beta_ns_per_byte, 9);
    // Even count: mean of the two middle values.
    const MeasuredLink even = hier::agreeLink({link(90, 10), link(80, 8), link(100, 12), link(70, 6)});
    EXPECT_DOUBLE_EQ(even.alpha_us, 85);
    EXPECT_DOUBLE_EQ(even.beta_ns_per_byte, 9);
    // The order of the records does not matter (ranks see them in rank order anyway).
    const MeasuredLink swapped = hier::agreeLink({link(70, 6), link(100, 12), link(80, 8), link(90, 10)});
    EXPECT_DOUBLE_EQ(swapped.alpha_us, even.alpha_us);
    EXPECT_DOUBLE_EQ(swapped.beta_ns_per_byte, even.beta_ns_per_byte);
}

TEST(LinkCalibration, OverrideRules) {
    const MeasuredLink m = link(84, 8.6);
    const hier::CostParams d = hier::CostParams::defaults();
    const hier::LinkCost& dn = d.link[hier::kLinkNetwork];
    struct Case {
        const char* what;
        hier::CalibrationPolicy policy;
        bool wanted;
        double alpha, betaNs;
    } cases[] = {
        {"default: measured", {true, false, false, false}, true, 84, 8.6},
        {"autocalibrate off: defaults", {false, false, false, false}, false, dn.alpha_us, dn.beta_us_per_byte * 1000},
        {"rules file: defaults", {true, true, false, false}, false, dn.alpha_us, dn.beta_us_per_byte * 1000},
        {"explicit alpha wins, beta measured", {true, false, true, false}, true, dn.alpha_us, 8.6},
        {"explicit beta wins, alpha measured", {true, false, false, true}, true, 84, dn.beta_us_per_byte * 1000},
        {"both explicit: nothing to measure", {true, false, true, true}, false, dn.alpha_us, dn.beta_us_per_byte * 1000},
    };
    for (const Case& c : cases) {
        EXPECT_EQ(hier::calibrationWanted(c.policy), c.wanted) << c.what;
        hier::CostParams p = d;  // stands for "whatever the MCA parameters say"
        hier::applyMeasuredLink(p, hier::kLinkNetwork, m, c.policy);
        EXPECT_DOUBLE_EQ(p.link[hier::kLinkNetwork].alpha_us, c.alpha) << c.what;
        EXPECT_NEAR(p.link[hier::kLinkNetwork].beta_us_per_byte * 1000, c.betaNs, 1e-12) << c.what;
        // Only the network class changes; theta and gamma never.
        EXPECT_DOUBLE_EQ(p.link[hier::kLinkNetwork].theta_us, dn.theta_us) << c.what;
        EXPECT_DOUBLE_EQ(p.link[hier::kLinkNetwork].gamma_us_per_byte, dn.gamma_us_per_byte) << c.what;
        for (int l : {hier::kLinkNuma, hier::kLinkNode, hier::kLinkSwitch})
            EXPECT_DOUBLE_EQ(p.link[l].alpha_us, d.link[l].alpha_us) << c.what;
    }
    // An invalid measurement changes nothing.
    hier::CostParams p = d;
    hier::applyMeasuredLink(p, hier::kLinkNetwork, MeasuredLink{}, {});
    EXPECT_DOUBLE_EQ(p.link[hier::kLinkNetwork].alpha_us, dn.alpha_us);
}

// The case of issue 7: reduce_scatter_block of 8 B per rank on 2 nodes x 4 ranks placed
// round-robin. A flat ring sends 7 messages in sequence across the network (every
// neighbour is on the other node); with the defaults' 3 us network that looks cheap.
// With the measured 84 us the model must keep at most 2 network crossings in sequence:
// its prediction has to stay above 2 * 84 us and below the ring's 7 * 84 us.
TEST(LinkCalibration, MeasuredNetworkChangesTheSmallReduceScatterChoice) {
    const int p = 8;
    const hier::Hierarchy h = roundRobin(p, 2);
    sim::SimNetwork net(p);
    CollCall c = reductionCall(HIERAGG_REDUCE_SCATTER_BLOCK, 0, p, &h, sumOp(), 1, 1 << 16);
    describeTypes(c, net.transport(0));
    hier::CostParams measured = hier::CostParams::defaults();
    hier::applyMeasuredLink(measured, hier::kLinkNetwork, link(84, 8.6), {});
    const hier::Plan before = hier::choosePlan(c, hier::CostParams::defaults());
    const hier::Plan after = hier::choosePlan(c, measured);
    EXPECT_LT(before.predUs, 7 * 84.0) << before.describe();
    EXPECT_GT(after.predUs, 84.0) << after.describe();
    EXPECT_LT(after.predUs, 7 * 84.0) << after.describe();
    const bool flatRing = after.mode == hier::Plan::Mode::Flat && after.stages[0].algo &&
                          std::string(after.stages[0].algo->name) == "ring";
    EXPECT_FALSE(flatRing) << after.describe();
}

// An offloaded round crosses the same network: a measured slower network raises the
// offload's alpha/beta by the same factor (unless set explicitly); a faster one does not
// lower them.
TEST(LinkCalibration, OffloadRoundFollowsASlowerNetwork) {
    const hier::CostParams d = hier::CostParams::defaults();
    const double netA = d.link[hier::kLinkNetwork].alpha_us, netB = d.link[hier::kLinkNetwork].beta_us_per_byte;
    hier::CostParams p = d;
    hier::applyMeasuredLink(p, hier::kLinkNetwork, link(84, 8.6), {});
    EXPECT_DOUBLE_EQ(p.offload.alpha_us, d.offload.alpha_us * (84 / netA));
    EXPECT_NEAR(p.offload.beta_us_per_byte, d.offload.beta_us_per_byte * (8.6 / 1000 / netB), 1e-15);
    hier::CalibrationPolicy keep;
    keep.offloadAlphaExplicit = keep.offloadBetaExplicit = true;
    hier::CostParams q = d;
    hier::applyMeasuredLink(q, hier::kLinkNetwork, link(84, 8.6), keep);
    EXPECT_DOUBLE_EQ(q.offload.alpha_us, d.offload.alpha_us);
    EXPECT_DOUBLE_EQ(q.offload.beta_us_per_byte, d.offload.beta_us_per_byte);
    hier::CostParams fast = d;
    hier::applyMeasuredLink(fast, hier::kLinkNetwork, link(1.0, 0.1), {});
    EXPECT_DOUBLE_EQ(fast.offload.alpha_us, d.offload.alpha_us);
    EXPECT_DOUBLE_EQ(fast.offload.beta_us_per_byte, d.offload.beta_us_per_byte);
    // Another link class leaves the offload alone.
    hier::CostParams node = d;
    hier::applyMeasuredLink(node, hier::kLinkNode, link(84, 8.6), {});
    EXPECT_DOUBLE_EQ(node.offload.alpha_us, d.offload.alpha_us);
}

// With the defaults offload=auto never opens the backend (Offload.DefaultCostsKeepAutoOnPointToPoint);
// a measured slow network must not change that by making the default (software provider)
// round look cheap next to it: with the offload's costs scaled like the network's, no
// leader stage is offloaded, for 2 and 4 leaders, at 8 B and 64 KiB, across the range of
// networks measured on the emulated cluster (alpha 70-300 us, beta 8-60 ns/B).
TEST(LinkCalibration, MeasuredNetworkKeepsAutoOffloadClosed) {
    OffloadCaps o;
    o.barrier = o.bcast = true;
    o.allreduceOps[HIERAGG_ELEM_DOUBLE] = 1u << HIERAGG_OPK_SUM;
    o.maxCount = o.maxBytes = 1u << 30;
    for (const auto& net : {link(70, 8), link(84, 8.6), link(157, 12), link(300, 60)})
        for (int nodes : {2, 4}) {
            const int p = 8;
            const hier::Hierarchy h = nodes == 2 ? roundRobin(p, 2) : virtualNodes(p, 2);
            o.members = nodes;
            hier::CostParams measured = hier::CostParams::defaults();
            hier::applyMeasuredLink(measured, hier::kLinkNetwork, net, {});
            for (hieragg_coll_kind kind : {HIERAGG_BCAST, HIERAGG_BARRIER, HIERAGG_ALLREDUCE})
                for (size_t count : {size_t{1}, size_t{8192}}) {
                    CollCall c = baseCall(kind, 0, p, &h);
                    c.args.scount = c.args.rcount = kind == HIERAGG_BARRIER ? 0 : count;
                    c.args.op_commutative = 1;
                    c.rtype = c.stype = hieragg_dtype_info{8, 0, 8, 0, 8};
                    c.offload = &o;
                    c.elemKind = HIERAGG_ELEM_DOUBLE;
                    c.opKind = HIERAGG_OPK_SUM;
                    const hier::Plan plan = hier::choosePlan(c, measured);
                    const bool offloaded = plan.mode == hier::Plan::Mode::Levels && plan.stages.back().algo &&
                                           (plan.stages.back().algo->traits & hier::kTraitFabric);
                    EXPECT_FALSE(offloaded) << hier::collectiveName(kind) << " " << count * 8 << " B, " << nodes
                                            << " nodes, alpha " << net.alpha_us << "\n" << plan.describe();
                }
        }
}
