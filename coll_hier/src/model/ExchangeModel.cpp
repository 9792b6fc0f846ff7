#include "model/ExchangeModel.hpp"

#include <algorithm>
#include <cmath>

#include "hieragg/hier/CollectiveFacts.hpp"

namespace hieragg::hier::model {

std::vector<int> ExchangeLayout::leaving(const std::function<int(int)>& partnerOf) const {
    const int top = h->levels() - 1;
    std::vector<int> out(static_cast<size_t>(groups), 0);
    for (int r = 0; r < n; ++r) {
        const int q = partnerOf(r);
        if (q < n && h->groupOf(top, r) != h->groupOf(top, q)) ++out[h->groupOf(top, r)];
    }
    return out;
}

int ExchangeLayout::ringCross() const {
    return crossers.empty() ? 0 : *std::max_element(crossers.begin(), crossers.end());
}

ExchangeLayout exchangeLayoutOf(const CollCall& c, const CostParams& p, const std::vector<int>& links) {
    ExchangeLayout x;
    x.n = c.size;
    x.m = c.size;
    x.hier = isDecomposed(c);
    x.in = &p.link[links[links.size() >= 2 ? links.size() - 2 : 0]];
    x.net = &p.link[links.back()];
    if (x.hier) {
        x.h = c.hierarchy;
        const int top = x.h->levels() - 1, n = x.n;
        x.groups = x.h->groupCount(top);
        x.m = 0;
        for (int g = 0; g < x.groups; ++g) x.m = std::max(x.m, static_cast<int>(x.h->groupMembers(top, g).size()));
        x.crossers = x.leaving([n](int r) { return (r + 1) % n; });
    }
    x.crowded = x.hier && p.nodeCores > 0 && x.m > p.nodeCores;
    x.steps = std::max(0, x.n - 1);
    x.lg = std::ceil(std::log2(std::max(x.m, 1)));
    return x;
}

double exchangeRoundTransferUs(const LinkCost& net, const LinkCost& in, int x, double bytes) {
    return x > 0 ? std::max(x * bytes * duplexBetaUs(net), bytes * in.beta_us_per_byte) : bytes * in.beta_us_per_byte;
}

double exchangeRoundBytesUs(const LinkCost& net, const LinkCost& in, int x, double bytes) {
    return exchangeRoundTransferUs(net, in, x, bytes) + (x > 0 ? rendezvousUs(net, bytes) : 0.0);
}

double doublingRoundsUs(const ExchangeLayout& x, double S, bool bruck) {
    const int n = x.n;
    const LinkCost &in = *x.in, &net = *x.net;
    const double rounds = std::ceil(std::log2(std::max(n, 1)));
    const LinkCost& l = x.hier ? net : in;
    const double share = x.hier ? static_cast<double>(x.m) : 1.0;  // a node's ranks share its link
    double latency = rounds * exchangeRoundUs(l);
    double transfer = x.steps * S * share * l.beta_us_per_byte;
    if (x.hier) {
        latency = 0;
        transfer = 0;
        for (int d = 1; d < n; d *= 2) {
            const std::vector<int> out = x.leaving([n, d, bruck](int r) { return bruck ? (r + d) % n : r ^ d; });
            const int most = *std::max_element(out.begin(), out.end());
            latency += most > 0 ? exchangeBurstUs(net, most) : exchangeRoundUs(in);
            transfer += exchangeRoundBytesUs(net, in, most, std::min(d, n - d) * S);  // blocks of the round
        }
    }
    return latency + transfer;
}

}  // namespace hieragg::hier::model
