#include "model/PrefixModel.hpp"

#include <algorithm>
#include <cmath>

#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Hierarchy.hpp"

namespace hieragg::hier::model {

PrefixGroups prefixGroupsOf(const CollCall& c, const CostParams& p, const std::vector<int>& links) {
    PrefixGroups x;
    const Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1;
    x.G = h.groupCount(top);
    for (int g = 0; g < x.G; ++g) x.M = std::max(x.M, static_cast<int>(h.groupMembers(top, g).size()));
    x.lm = std::ceil(std::log2(x.M)), x.lG = std::ceil(std::log2(std::max(1, x.G)));
    x.in = &p.link[links[links.size() - 2]];
    x.net = &p.link[links.back()];
    return x;
}

PrefixPlacement prefixPlacementOf(const CollCall& c, const CostParams& p, const std::vector<int>& links) {
    PrefixPlacement x;
    x.group.assign(static_cast<size_t>(std::max(0, c.size)), 0);
    x.net = &p.link[links.back()];
    x.in = links.size() >= 2 ? &p.link[links[links.size() - 2]] : x.net;
    if (!isDecomposed(c)) return x;
    const Hierarchy& h = *c.hierarchy;
    const int top = h.levels() - 1;
    for (int r = 0; r < c.size; ++r) x.group[static_cast<size_t>(r)] = h.groupOf(top, r);
    return x;
}

double chainLatencyUs(const PrefixPlacement& x, int n, double unit, double pulses, int* crossings) {
    double first = 0, slowest = 0;
    int crossed = 0;
    for (int r = 0; r + 1 < n; ++r) {
        const double hop = prefixRoundUs(x.between(r, r + 1), unit, true);
        first += hop;
        slowest = std::max(slowest, hop);
        crossed += x.group[r] != x.group[r + 1];
    }
    if (crossings) *crossings = crossed;
    return first + (pulses - 1) * slowest;
}

double doublingLatencyUs(const PrefixPlacement& x, int n, double S, int* crossing) {
    double us = 0;
    int crossed = 0;
    std::vector<int> leaving;
    for (int d = 1; d < n; d *= 2) {
        // Messages of this step that leave each group.
        leaving.assign(leaving.size(), 0);
        int k = 0;
        for (int r = 0; r + d < n; ++r) {
            const int g = x.group[r];
            if (g == x.group[r + d]) continue;
            if (static_cast<size_t>(g) >= leaving.size()) leaving.resize(static_cast<size_t>(g) + 1, 0);
            k = std::max(k, ++leaving[static_cast<size_t>(g)]);
        }
        if (k == 0) {
            us += prefixExchangeUs(*x.in, S);
            continue;
        }
        ++crossed;
        const LinkCost& l = *x.net;
        us += exchangeBurstUs(l, k) + k * S * l.beta_us_per_byte + S * l.gamma_us_per_byte + rendezvousUs(l, S);
    }
    if (crossing) *crossing = crossed;
    return us;
}

}  // namespace hieragg::hier::model
