#include "ReduceRateProbe.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "FixedText.hpp"
#include "Runtime.hpp"
#include "hieragg/hier/PolynomialFit.hpp"

namespace hieragg {

namespace {
// The sizes a reduction of one pulse combines (coll_hieragg_segment_size's 64 KiB and less),
// in the caches a pulse's arrival is in, and the times each is taken (its floor drops what a
// descheduled sample adds): 3 x 9 reductions of at most 64 KiB, tens of microseconds in all.
constexpr size_t kProbeSizes[] = {4096, 16384, 65536};
constexpr int kProbeReps = 9;

// dst += src, out of line so that the compiler keeps the work whatever the caller does with it.
[[gnu::noinline]] void sumInto(const double* src, double* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] += src[i];
}

bool measuresAtSetup() {
    const hier::CalibrationPolicy& p = Runtime::instance()->calibrationPolicy(hier::kLinkNode);
    return p.autocalibrate && !p.rulesFile;
}
}  // namespace

double reduceRateFromTimings(const std::vector<ReductionTiming>& timings) {
    std::vector<std::pair<double, double>> floors;  // (bytes, smallest us)
    for (const ReductionTiming& t : timings) {
        if (!(t.us > 0) || !std::isfinite(t.us) || !(t.bytes > 0)) continue;
        auto it = std::find_if(floors.begin(), floors.end(), [&](const auto& f) { return f.first == t.bytes; });
        if (it == floors.end())
            floors.emplace_back(t.bytes, t.us);
        else
            it->second = std::min(it->second, t.us);
    }
    if (floors.size() < 2) return 0.0;
    std::vector<double> bytes, us;
    for (const auto& f : floors) bytes.push_back(f.first), us.push_back(f.second);
    const double slopeUsPerByte = hier::leastSquaresPolynomial(bytes, us, 1)[1];
    return slopeUsPerByte > 0 ? slopeUsPerByte * 1000.0 : 0.0;
}

double agreedReduceRate(std::vector<double> rates) {
    rates.erase(std::remove_if(rates.begin(), rates.end(), [](double r) { return !(r > 0) || !std::isfinite(r); }),
                rates.end());
    if (rates.empty()) return 0.0;
    std::sort(rates.begin(), rates.end());
    const size_t n = rates.size();
    return n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
}

void applyReduceRate(hier::CostParams& p, double nsPerByte, const int (&setBits)[hier::kLinkClassCount]) {
    if (!(nsPerByte > 0)) return;
    for (int l = 0; l < hier::kLinkClassCount; ++l)
        if (!(setBits[l] & HIERAGG_COST_SET_GAMMA)) p.link[l].gamma_us_per_byte = nsPerByte / 1000.0;
}

double localReduceRateNsPerByte() {
    static const double rate = [] {
        const size_t most = *std::max_element(std::begin(kProbeSizes), std::end(kProbeSizes)) / sizeof(double);
        std::vector<double> src(most, 1.0), dst(most, 0.0);
        sumInto(src.data(), dst.data(), most);  // pages and caches in, not timed
        std::vector<ReductionTiming> t;
        for (int rep = 0; rep < kProbeReps; ++rep)
            for (size_t bytes : kProbeSizes) {  // the sizes interleaved: a burst of load hits all
                const auto t0 = std::chrono::steady_clock::now();
                sumInto(src.data(), dst.data(), bytes / sizeof(double));
                const auto t1 = std::chrono::steady_clock::now();
                t.push_back({static_cast<double>(bytes), std::chrono::duration<double, std::micro>(t1 - t0).count()});
            }
        volatile double keep = dst[most - 1];
        (void)keep;
        return reduceRateFromTimings(t);
    }();
    return rate;
}

double ownReduceRateForSetup() { return measuresAtSetup() ? localReduceRateNsPerByte() : 0.0; }

void applyAgreedReduceRate(hieragg_comm& c, const std::vector<double>& rates) {
    if (!measuresAtSetup()) return;
    const double agreed = agreedReduceRate(rates);
    c.selection.reduceRateNsPerByte = agreed;
    applyReduceRate(c.selection.costs, agreed, Runtime::instance()->config().link_cost_set);
}

std::string reduceRateNote(const hieragg_comm& c, int link) {
    if (link != hier::kLinkNode) return "";
    const std::string g = "; gamma=" + fixed(c.selection.costs.link[link].gamma_us_per_byte * 1000, 3) + " ns/B";
    if (Runtime::instance()->config().link_cost_set[link] & HIERAGG_COST_SET_GAMMA)
        return g + " (set by coll_hieragg_cost_node_gamma)";
    if (c.selection.reduceRateNsPerByte > 0) return g + " (doubles summed locally at setup, median of the ranks)";
    return g + " (not measured)";
}

}  // namespace hieragg
