#include "hieragg/hier/LinkCalibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hieragg::hier {

namespace {
double minimum(const std::vector<double>& v) {
    double m = INFINITY;
    for (double x : v)
        if (std::isfinite(x) && x > 0 && x < m) m = x;
    return m;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

// The floor of one size's round trips: the smallest finite positive sample, and the gap to
// the next smallest (0 with one sample). A round trip is never faster than the link,
// only slower; with delays spread like a busy machine's (a descheduled process, 0.1-10 ms),
// the smallest of k samples sits above the link by about the gap between the two smallest
// (for exponential delays both are 1/(k rate) on average), so the gap is how far the floor
// may be off. Two samples that agree confirm it; a single sample is taken as is (gap 0).
struct SizeFloor {
    double x = 0, y = INFINITY, gap = INFINITY;
};
SizeFloor floorOf(const RoundTrips& r) {
    SizeFloor f;
    f.x = static_cast<double>(r.bytes);
    double second = INFINITY;
    for (double t : r.us)
        if (std::isfinite(t) && t > 0) {
            if (t < f.y)
                second = f.y, f.y = t;
            else if (t < second)
                second = t;
        }
    f.gap = std::isfinite(second) ? second - f.y : 0.0;  // one sample: nothing to judge it by, taken as is
    return f;
}

// A least-squares line y = intercept + slope x through the floors, and how far each of the two
// may be off: a floor above the link by up to its gap moves the slope by its weight
// (x_i - mean x) / Sxx times that, the intercept by 1/n - mean x (x_i - mean x) / Sxx times it.
struct LineFit {
    double intercept = 0, slope = 0, slopeUncertainty = INFINITY, interceptUncertainty = INFINITY;
};
// False with fewer than two distinct sizes.
bool fitLine(const std::vector<SizeFloor>& f, LineFit& out) {
    const size_t n = f.size();
    if (n < 2) return false;
    double mx = 0, my = 0;
    for (const SizeFloor& p : f) mx += p.x, my += p.y;
    mx /= static_cast<double>(n);
    my /= static_cast<double>(n);
    double sxx = 0, sxy = 0;
    for (const SizeFloor& p : f) sxx += (p.x - mx) * (p.x - mx), sxy += (p.x - mx) * (p.y - my);
    if (!(sxx > 0)) return false;
    out.slope = sxy / sxx;
    out.intercept = my - out.slope * mx;
    out.slopeUncertainty = out.interceptUncertainty = 0;
    for (const SizeFloor& p : f) {
        const double w = (p.x - mx) / sxx, wc = 1.0 / static_cast<double>(n) - mx * w;
        if (w != 0) out.slopeUncertainty += std::fabs(w) * p.gap;
        if (wc != 0) out.interceptUncertainty += std::fabs(wc) * p.gap;
    }
    return true;
}

double spread(double a, double b) {
    const double lo = std::min(a, b), hi = std::max(a, b);
    return lo > 0 ? (hi - lo) / lo : 0.0;
}

MeasuredLink rejected(std::string* why, const std::string& what) {
    if (why) *why = what;
    return MeasuredLink{};
}
}  // namespace

LinkRecord toRecord(const MeasuredLink& m) {
    return {m.valid ? 1.0 : m.rejected ? -1.0 : 0.0, m.alpha_us,      m.beta_ns_per_byte, m.exchange_us, m.eager_beta_ns_per_byte,
            m.rendezvous_us,     m.eager_bytes,   m.burst_us,         m.noise,       m.duplex_beta_ns_per_byte};
}

MeasuredLink fromRecord(const LinkRecord& r) {
    MeasuredLink m;
    m.valid = r.valid > 0;
    m.rejected = r.valid < 0;
    m.alpha_us = r.alpha_us;
    m.beta_ns_per_byte = r.beta_ns_per_byte;
    m.exchange_us = r.exchange_us;
    m.eager_beta_ns_per_byte = r.eager_beta_ns_per_byte;
    m.rendezvous_us = r.rendezvous_us;
    m.eager_bytes = r.eager_bytes;
    m.burst_us = r.burst_us;
    m.noise = r.noise;
    m.duplex_beta_ns_per_byte = r.duplex_beta_ns_per_byte;
    return m;
}

std::vector<size_t> calibrationSizes(size_t eagerBytes, size_t largestBytes) {
    std::vector<size_t> out;
    if (eagerBytes < 64) {
        out = {8, 16 * 1024, 32 * 1024};
    } else {
        const size_t capped = std::min<size_t>(eagerBytes, 512 * 1024);
        out = {8, capped / 4, capped / 2};
        if (eagerBytes <= 512 * 1024) {
            out.push_back(2 * eagerBytes);
            out.push_back(4 * eagerBytes);
        }
    }
    while (out.back() < largestBytes) out.push_back(std::min(4 * out.back(), largestBytes));
    return out;
}

MeasuredLink estimateLink(const std::vector<RoundTrips>& rounds, size_t replyBytes, size_t eagerBytes,
                          std::string* why, std::string* note, bool rejectUnknownRate) {
    std::vector<SizeFloor> eager, bulk;
    for (const RoundTrips& r : rounds) {
        const SizeFloor f = floorOf(r);
        if (!std::isfinite(f.y)) continue;
        (eagerBytes > 0 && r.bytes >= eagerBytes ? bulk : eager).push_back(f);
    }
    LineFit e, b;
    if (!fitLine(eager, e)) return rejected(why, "fewer than two sizes below the eager limit timed");
    const bool bulkLine = fitLine(bulk, b);
    // Which slope prices the bytes. Each is trusted when it is a rate (within the bounds) known
    // to within the chooser's widest band (kMaxCloseFraction): a rate known worse than that
    // cannot keep a choice between rows whose predictions are that close.
    const auto sure = [](const LineFit& f) {
        return f.slope * 1000.0 >= kMinBetaNsPerByte && f.slope * 1000.0 <= kMaxBetaNsPerByte &&
               f.slopeUncertainty <= kMaxCloseFraction * f.slope;
    };
    const auto relative = [](const LineFit& f) { return f.slope > 0 ? f.slopeUncertainty / f.slope : INFINITY; };
    const bool eagerSure = sure(e), bulkSure = bulkLine && sure(b);
    const bool bulkUsable = bulkLine && b.slope * 1000.0 >= kMinBetaNsPerByte && b.slope * 1000.0 <= kMaxBetaNsPerByte;
    // The bulk rate prices every byte when the eager sizes do not give a rate (shared memory:
    // 2 KiB is 0.2 us of copying, less than the noise): their line falls, or is not known
    // while the bulk one is. Not on a bulk rate itself unknown: alpha is the eager floors net
    // of their bytes at it, and an inflated rate takes them below zero.
    const bool bulkPricesAll =
        bulkUsable && (e.slope * 1000.0 < kMinBetaNsPerByte || (!eagerSure && bulkSure));
    // The bulk line is set aside (the eager rate stands) when the eager rate is the better
    // known and the bulk one is not known within the band: a long round trip is more often
    // delayed by load than a short one, and there are half as many of them, so their minima
    // can all sit above the link (seen: 0.95 ns/B for the 8.6 ns/B emulated link).
    const bool bulkSetAside = bulkLine && !bulkPricesAll && !bulkSure && relative(e) <= relative(b);
    double c = e.intercept, cUncertainty = e.interceptUncertainty, betaEager = e.slope, noise = relative(e);
    if (bulkPricesAll) {
        betaEager = b.slope;
        noise = relative(b);
        c = INFINITY;
        for (const SizeFloor& f : eager)
            if (f.y - f.x * b.slope < c) c = f.y - f.x * b.slope, cUncertainty = f.gap;
        if (note)
            *note = "eager slope " + num(e.slope * 1000) + " +- " + num(e.slopeUncertainty * 1000) +
                    " ns/B not known within " + num(kMaxCloseFraction * 100) + "%: the bulk rate " +
                    num(b.slope * 1000) + " +- " + num(b.slopeUncertainty * 1000) + " ns/B prices every byte";
    } else if (bulkSetAside && note) {
        *note = "bulk slope " + num(b.slope * 1000) + " +- " + num(b.slopeUncertainty * 1000) + " ns/B not known within " +
                num(kMaxCloseFraction * 100) + "% (its sizes' lowest two round trips differ by " + num(bulk.front().gap) +
                ", " + num(bulk.back().gap) + " us): the eager rate " + num(e.slope * 1000) + " +- " +
                num(e.slopeUncertainty * 1000) + " ns/B stands";
    }
    MeasuredLink out;
    out.eager_beta_ns_per_byte = betaEager * 1000.0;
    out.alpha_us = (c - static_cast<double>(replyBytes) * betaEager) / 2;
    out.beta_ns_per_byte = out.eager_beta_ns_per_byte;
    if (bulkLine) {
        out.eager_bytes = static_cast<double>(eagerBytes);
        if (!bulkSetAside && b.slope <= betaEager * kBulkSlowerSlack) {
            out.beta_ns_per_byte = b.slope * 1000.0;
            noise = std::max(noise, relative(b));
            out.rendezvous_us = std::max(0.0, b.intercept - 2 * out.alpha_us - static_cast<double>(replyBytes) * betaEager);
        } else {
            // Slower in bulk than eager (load on the long round trips, not the link), or not
            // known: the eager rate stands, and the rendezvous is the smallest excess over it
            // above the limit.
            double excess = INFINITY;
            for (const SizeFloor& f : bulk)
                excess = std::min(excess, f.y - 2 * out.alpha_us - (f.x + static_cast<double>(replyBytes)) * betaEager);
            out.rendezvous_us = std::max(0.0, excess);
        }
    }
    const double betaNoise = noise;
    // The start-up is known to within half its intercept's uncertainty (a round trip is two).
    if (out.alpha_us > 0) noise = std::max(noise, cUncertainty / 2 / out.alpha_us);
    out.noise = std::isfinite(noise) ? noise : kMaxCloseFraction;
    if (!(out.alpha_us >= kMinAlphaUs && out.alpha_us <= kMaxAlphaUs))
        return rejected(why, "alpha " + num(out.alpha_us) + " us is outside " + num(kMinAlphaUs) + ".." +
                                 num(kMaxAlphaUs) + " us");
    for (const double beta : {out.eager_beta_ns_per_byte, out.beta_ns_per_byte})
        if (!(beta >= kMinBetaNsPerByte && beta <= kMaxBetaNsPerByte))
            return rejected(why, "beta " + num(beta) + " ns/B is outside " + num(kMinBetaNsPerByte) + ".." +
                                     num(kMaxBetaNsPerByte) + " ns/B");
    // A rate whose uncertainty exceeds itself is not measured: the floors cannot tell it from
    // none or from twice it. Rejected, so the setup measures once more; the last attempt's
    // stands with its noise (the widest band), closer to the link than the defaults.
    if (rejectUnknownRate && !(betaNoise <= 1))
        return rejected(why, "beta " + num(out.beta_ns_per_byte) + " ns/B is not known within itself: the sizes' " +
                                 "two smallest round trips differ by more than the rate accounts for (+- " +
                                 num(betaNoise * out.beta_ns_per_byte) + " ns/B)");
    out.valid = true;
    return out;
}

double estimateBurst(const std::vector<double>& streamUs, const std::vector<double>& singleUs, int count,
                     double alphaUs) {
    const double s = minimum(streamUs), one = minimum(singleUs);
    if (!std::isfinite(s) || !std::isfinite(one) || count < 2) return 0.0;
    return std::clamp((s - one) / (count - 1), 0.0, std::max(0.0, alphaUs));
}

double estimateExchangeRound(const std::vector<double>& roundUs, double alphaUs) {
    double best = INFINITY;
    for (size_t i = 0; i + 1 < roundUs.size(); ++i) {
        const double a = roundUs[i], b = roundUs[i + 1];
        if (std::isfinite(a) && std::isfinite(b) && a > 0 && b > 0) best = std::min(best, (a + b) / 2);
    }
    return std::isfinite(best) ? std::max(best, alphaUs) : 0.0;
}

double estimateDuplexBeta(const std::vector<double>& roundUs, double bytes, double exchangeUs, double rendezvousUs,
                          double betaNsPerByte) {
    const double round = estimateExchangeRound(roundUs, 0.0);
    if (round <= 0 || bytes <= 0) return 0.0;
    return std::max(betaNsPerByte, (round - exchangeUs - rendezvousUs) * 1000.0 / bytes);
}

MeasuredLink combinePair(const MeasuredLink& a, const MeasuredLink& b, std::string* disagreed) {
    if (!a.valid || !b.valid) return MeasuredLink{};
    const double sa = spread(a.alpha_us, b.alpha_us), sb = spread(a.beta_ns_per_byte, b.beta_ns_per_byte);
    if (sa > kPairAgreementFactor - 1 || sb > kPairAgreementFactor - 1) {
        // Load changed under one end's rounds. The end whose own fit is the better known (the
        // smaller noise: its floors confirmed by their second samples) was the less disturbed
        // one, and its estimate is kept whole (its parameters belong together). Alike, load only
        // ever adds time and alpha comes from the most sampled, smallest round trips: the end
        // with the smaller alpha. (A smaller alpha alone misleads when load inflated one end's
        // largest eager size: its slope steepens and its alpha falls, seen 14.5 us at 48 ns/B
        // beside 97 us at 15 ns/B.) The spread is the noise, so predictions that close keep the
        // earlier row.
        const bool aKept = a.noise != b.noise ? a.noise < b.noise : a.alpha_us <= b.alpha_us;
        MeasuredLink m = aKept ? a : b;
        m.noise = std::max({sa, sb, a.noise, b.noise});
        if (disagreed)
            *disagreed = sa > kPairAgreementFactor - 1
                       ? "the two ends disagree: alpha " + num(a.alpha_us) + " vs " + num(b.alpha_us) + " us"
                       : "the two ends disagree: beta " + num(a.beta_ns_per_byte) + " vs " +
                             num(b.beta_ns_per_byte) + " ns/B";
        return m;
    }
    MeasuredLink m;
    m.valid = true;
    m.alpha_us = (a.alpha_us + b.alpha_us) / 2;
    m.beta_ns_per_byte = (a.beta_ns_per_byte + b.beta_ns_per_byte) / 2;
    m.eager_beta_ns_per_byte = (a.eager_beta_ns_per_byte + b.eager_beta_ns_per_byte) / 2;
    m.exchange_us = (a.exchange_us + b.exchange_us) / 2;
    m.rendezvous_us = (a.rendezvous_us + b.rendezvous_us) / 2;
    m.eager_bytes = std::max(a.eager_bytes, b.eager_bytes);
    m.burst_us = (a.burst_us + b.burst_us) / 2;
    m.duplex_beta_ns_per_byte = a.duplex_beta_ns_per_byte > 0 && b.duplex_beta_ns_per_byte > 0
                                    ? (a.duplex_beta_ns_per_byte + b.duplex_beta_ns_per_byte) / 2
                                    : std::max(a.duplex_beta_ns_per_byte, b.duplex_beta_ns_per_byte);
    m.noise = std::max({sa, sb, a.noise, b.noise});
    return m;
}

MeasuredLink agreeLink(const std::vector<MeasuredLink>& measurements) {
    std::vector<double> alpha, beta, eagerBeta, exchange, rendezvous, eagerBytes, burst, duplex;
    double noise = 0;
    bool rejected = false;
    for (const MeasuredLink& m : measurements)
        if (!m.valid) {
            rejected = rejected || m.rejected;
        } else {
            alpha.push_back(m.alpha_us);
            beta.push_back(m.beta_ns_per_byte);
            eagerBeta.push_back(m.eager_beta_ns_per_byte);
            if (m.exchange_us > 0) exchange.push_back(m.exchange_us);
            if (m.eager_bytes > 0) rendezvous.push_back(m.rendezvous_us), eagerBytes.push_back(m.eager_bytes);
            if (m.burst_us > 0) burst.push_back(m.burst_us);
            if (m.duplex_beta_ns_per_byte > 0) duplex.push_back(m.duplex_beta_ns_per_byte);
            noise = std::max(noise, m.noise);
        }
    MeasuredLink out;
    out.rejected = alpha.empty() && rejected;
    if (alpha.empty()) return out;
    out.valid = true;
    out.alpha_us = median(alpha);
    out.beta_ns_per_byte = median(beta);
    out.eager_beta_ns_per_byte = median(eagerBeta);
    out.exchange_us = exchange.empty() ? 0.0 : median(exchange);
    out.rendezvous_us = rendezvous.empty() ? 0.0 : median(rendezvous);
    out.eager_bytes = eagerBytes.empty() ? 0.0 : median(eagerBytes);
    out.burst_us = burst.empty() ? 0.0 : median(burst);
    out.duplex_beta_ns_per_byte = duplex.empty() ? 0.0 : median(duplex);
    const auto [alo, ahi] = std::minmax_element(alpha.begin(), alpha.end());
    const auto [blo, bhi] = std::minmax_element(beta.begin(), beta.end());
    out.noise = std::max({noise, spread(*alo, *ahi), spread(*blo, *bhi)});
    return out;
}

bool calibrationWanted(const CalibrationPolicy& policy) {
    return policy.autocalibrate && !policy.rulesFile && !(policy.alphaExplicit && policy.betaExplicit);
}

double closeFractionOf(const MeasuredLink& m) {
    if (!m.valid || m.noise == 0) return 0.0;
    return std::clamp(std::isfinite(m.noise) ? m.noise : kMaxCloseFraction, kMinCloseFraction, kMaxCloseFraction);
}

void applyMeasuredLink(CostParams& p, int link, const MeasuredLink& m, const CalibrationPolicy& policy) {
    if (!m.valid || !calibrationWanted(policy) || link < 0 || link >= kLinkClassCount) return;
    LinkCost& l = p.link[link];
    const LinkCost before = l;
    if (!policy.alphaExplicit) l.alpha_us = m.alpha_us;
    if (!policy.betaExplicit) {
        l.beta_us_per_byte = m.beta_ns_per_byte / 1000.0;
        if (m.eager_bytes > 0) {
            l.eager_bytes = m.eager_bytes;
            l.rendezvous_us = m.rendezvous_us;
        }
    }
    p.closeFraction = std::max(p.closeFraction, closeFractionOf(m));
    if (!policy.exchangeExplicit && m.exchange_us > 0 && m.alpha_us > 0) {
        const double round = std::max(m.exchange_us, m.alpha_us);  // medians of pairs: keep >= alpha
        l.exchange_us = policy.alphaExplicit ? round / m.alpha_us * l.alpha_us : round;
    }
    if (m.duplex_beta_ns_per_byte > 0 && m.beta_ns_per_byte > 0) {
        const double duplex = std::max(m.duplex_beta_ns_per_byte, m.beta_ns_per_byte) / 1000.0;
        l.duplex_beta_us_per_byte =
            policy.betaExplicit ? duplex / (m.beta_ns_per_byte / 1000.0) * l.beta_us_per_byte : duplex;
    }
    if (!policy.thetaExplicit) {
        if (m.burst_us > 0) {
            l.burst_us = m.burst_us;
            // Inside a node the back-to-back gap is the per-message cost itself (the PML's
            // work for one more message, no wire in between): the model's theta.
            if (link == kLinkNode) l.theta_us = m.burst_us;
        } else if (before.alpha_us > 0) {
            l.burst_us = burstUs(before) * std::max(1.0, l.alpha_us / before.alpha_us);
        }
    }
    if (link != kLinkNetwork) return;
    if (!policy.offloadAlphaExplicit && before.alpha_us > 0)
        p.offload.alpha_us *= std::max(1.0, l.alpha_us / before.alpha_us);
    if (!policy.offloadBetaExplicit && before.beta_us_per_byte > 0)
        p.offload.beta_us_per_byte *= std::max(1.0, l.beta_us_per_byte / before.beta_us_per_byte);
}

}  // namespace hieragg::hier
