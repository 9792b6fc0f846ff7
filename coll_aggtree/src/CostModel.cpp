#include "hieragg/aggtree/CostModel.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace hieragg::aggtree {

double aggregationTimeUs(double radius_links, double height, double k, double perPacketUs, double l_us) {
    return radius_links * l_us + height * k * perPacketUs;
}

double typeOneModelUs(double k, double a, double b, double P) {
    if (!(k > 1.0)) throw std::invalid_argument("typeOneModelUs: k must be > 1");
    return (a + b * k) * std::log(P) / std::log(k);
}

double optimalRealK(double a, double b) {
    if (!(a >= 0.0) || !(b > 0.0)) throw std::invalid_argument("optimalRealK: need a >= 0, b > 0");
    const double target = a / b;
    auto g = [](double k) { return k * (std::log(k) - 1.0); };
    // g(e) = 0 <= target, so the root is at least e; widen the upper end until it brackets.
    double lo = std::exp(1.0), hi = 2.0 * lo;
    while (g(hi) < target) {
        lo = hi;
        hi *= 2.0;
        if (hi > 1e300) throw std::overflow_error("optimalRealK: a/b too large");
    }
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
        double mid = 0.5 * (lo + hi);
        (g(mid) < target ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

int optimalIntegerK(double a, double b, double P) {
    const double kMaxAllowed = std::max(2.0, P);
    double kr = std::min(optimalRealK(a, b), kMaxAllowed);
    int lo = std::max(2, static_cast<int>(std::floor(kr)));
    int hi = std::max(2, static_cast<int>(std::min(std::ceil(kr), kMaxAllowed)));
    if (P <= 1.0) return 2;
    return typeOneModelUs(hi, a, b, P) < typeOneModelUs(lo, a, b, P) ? hi : lo;
}

WidthBand widthBand(double a, double b, double P, double epsilon_us) {
    WidthBand band;
    band.k_star = optimalIntegerK(a, b, P);
    band.f_star_us = P > 1.0 ? typeOneModelUs(band.k_star, a, b, P) : 0.0;
    band.k_min = band.k_max = band.k_star;
    if (P <= 1.0) return band;
    const double limit = band.f_star_us + epsilon_us;
    const int kCap = std::max(2, static_cast<int>(P));
    while (band.k_min > 2 && typeOneModelUs(band.k_min - 1, a, b, P) <= limit) --band.k_min;
    while (band.k_max < kCap && typeOneModelUs(band.k_max + 1, a, b, P) <= limit) ++band.k_max;
    return band;
}

const char* collectiveOpName(CollectiveOp op) {
    switch (op) {
        case CollectiveOp::Barrier: return "barrier";
        case CollectiveOp::Bcast: return "bcast";
        case CollectiveOp::Reduce: return "reduce";
        case CollectiveOp::Allreduce: return "allreduce";
    }
    return "?";
}

CollectiveOp parseCollectiveOp(const std::string& name) {
    for (auto op : {CollectiveOp::Barrier, CollectiveOp::Bcast, CollectiveOp::Reduce, CollectiveOp::Allreduce})
        if (name == collectiveOpName(op)) return op;
    throw std::invalid_argument("unknown collective operation '" + name + "' (barrier|bcast|reduce|allreduce)");
}

Packet packetFor(CollectiveOp op, double messageBytes, int elementBytes) {
    if (elementBytes <= 0) throw std::invalid_argument("packetFor: element size must be positive");
    switch (op) {
        case CollectiveOp::Barrier: return {8.0, 0.0};
        case CollectiveOp::Bcast: return {messageBytes, 0.0};
        case CollectiveOp::Reduce:
        case CollectiveOp::Allreduce: return {messageBytes, std::ceil(messageBytes / elementBytes)};
    }
    return {};
}

double typeOneTimeUs(int P, int k, const Packet& packet, const CostParameters& params) {
    if (P <= 1) return 0.0;
    return typeOneModelUs(k, params.a(), params.process.perPacketUs(packet.bytes, packet.elements), P);
}

double typeTwoTimeUs(int P, const Packet& packet, const CostParameters& params) {
    if (P <= 1) return 0.0;
    const int d = std::max(2, std::min(params.switch_degree, P));
    int height = 0;
    for (double reach = 1.0; reach < P; reach *= d) ++height;  // ⌈log_d P⌉ without rounding trouble
    return aggregationTimeUs(0.5 * params.delta_links, height, d,
                             params.sw.perPacketUs(packet.bytes, packet.elements), params.l_us);
}

TreeRecommendation recommendTree(int P, CollectiveOp op, double messageBytes, int elementBytes,
                                 const CostParameters& params, bool switchesCanAggregate, double epsilon_us) {
    TreeRecommendation rec;
    const Packet packet = packetFor(op, messageBytes, elementBytes);
    const double b = params.process.perPacketUs(packet.bytes, packet.elements);
    rec.band = widthBand(params.a(), b, P, epsilon_us);
    rec.k = rec.band.k_star;
    rec.type_one_us = typeOneTimeUs(P, rec.k, packet, params);
    std::ostringstream why;
    why << "type I: a = δ·l = " << params.a() << " us, b = θ+Sβ+S*γ = " << b << " us, a/b = " << params.a() / b
        << " -> k* = " << rec.k << " (F = " << rec.type_one_us << " us; k in [" << rec.band.k_min << ", "
        << rec.band.k_max << "] within " << epsilon_us << " us)";
    if (switchesCanAggregate && P > 1) {
        rec.type_two_us = typeTwoTimeUs(P, packet, params);
        why << "; type II: " << rec.type_two_us << " us";
        if (rec.type_two_us < rec.type_one_us) {
            rec.type = TreeType::TypeTwo;
            rec.k = std::max(2, std::min(params.switch_degree, P));
            why << " < type I, switches aggregate (shorter paths win for " << packet.bytes << "-byte packets)";
        } else {
            why << " >= type I, reduction spread over processes wins";
        }
    } else {
        why << "; type II not available (switches cannot aggregate or no free entries)";
    }
    rec.reason = why.str();
    return rec;
}

}  // namespace hieragg::aggtree
