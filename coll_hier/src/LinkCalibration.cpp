#include "hieragg/hier/LinkCalibration.hpp"

#include <algorithm>
#include <cmath>

namespace hieragg::hier {

namespace {
double minimum(const std::vector<double>& v) {
    double m = INFINITY;
    for (double x : v)
        if (std::isfinite(x) && x < m) m = x;
    return m;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
}  // namespace

MeasuredLink estimateLink(const std::vector<double>& smallRttUs, const std::vector<double>& largeRttUs,
                          size_t largeBytes, size_t smallBytes) {
    MeasuredLink m;
    const double small = minimum(smallRttUs), large = minimum(largeRttUs);
    if (!std::isfinite(small) || !std::isfinite(large) || small <= 0 || largeBytes <= smallBytes) return m;
    m.valid = true;
    m.alpha_us = small / 2;
    const double perByteUs = (large - small) / static_cast<double>(largeBytes - smallBytes);
    m.beta_ns_per_byte = std::max(perByteUs * 1000.0, kMinBetaNsPerByte);
    return m;
}

double estimateExchangeRound(const std::vector<double>& roundUs, double alphaUs) {
    double best = INFINITY;
    for (size_t i = 0; i + 1 < roundUs.size(); ++i) {
        const double a = roundUs[i], b = roundUs[i + 1];
        if (std::isfinite(a) && std::isfinite(b) && a > 0 && b > 0) best = std::min(best, (a + b) / 2);
    }
    return std::isfinite(best) ? std::max(best, alphaUs) : 0.0;
}

MeasuredLink agreeLink(const std::vector<MeasuredLink>& measurements) {
    std::vector<double> alpha, beta, exchange;
    for (const MeasuredLink& m : measurements)
        if (m.valid) {
            alpha.push_back(m.alpha_us);
            beta.push_back(m.beta_ns_per_byte);
            if (m.exchange_us > 0) exchange.push_back(m.exchange_us);
        }
    MeasuredLink out;
    if (alpha.empty()) return out;
    out.valid = true;
    out.alpha_us = median(alpha);
    out.beta_ns_per_byte = median(beta);
    out.exchange_us = exchange.empty() ? 0.0 : median(exchange);
    return out;
}

bool calibrationWanted(const CalibrationPolicy& policy) {
    return policy.autocalibrate && !policy.rulesFile && !(policy.alphaExplicit && policy.betaExplicit);
}

void applyMeasuredLink(CostParams& p, int link, const MeasuredLink& m, const CalibrationPolicy& policy) {
    if (!m.valid || !calibrationWanted(policy) || link < 0 || link >= kLinkClassCount) return;
    LinkCost& l = p.link[link];
    const LinkCost before = l;
    if (!policy.alphaExplicit) l.alpha_us = m.alpha_us;
    if (!policy.betaExplicit) l.beta_us_per_byte = m.beta_ns_per_byte / 1000.0;
    if (link != kLinkNetwork) return;
    if (!policy.exchangeExplicit && m.exchange_us > 0 && m.alpha_us > 0) {
        const double round = std::max(m.exchange_us, m.alpha_us);  // medians of pairs: keep >= alpha
        l.exchange_us = policy.alphaExplicit ? round / m.alpha_us * l.alpha_us : round;
    }
    if (!policy.thetaExplicit && before.alpha_us > 0)
        l.burst_us = burstUs(before) * std::max(1.0, l.alpha_us / before.alpha_us);
    if (!policy.offloadAlphaExplicit && before.alpha_us > 0)
        p.offload.alpha_us *= std::max(1.0, l.alpha_us / before.alpha_us);
    if (!policy.offloadBetaExplicit && before.beta_us_per_byte > 0)
        p.offload.beta_us_per_byte *= std::max(1.0, l.beta_us_per_byte / before.beta_us_per_byte);
}

}  // namespace hieragg::hier
