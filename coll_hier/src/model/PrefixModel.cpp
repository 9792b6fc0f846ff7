#include "model/PrefixModel.hpp"

#include <algorithm>

namespace hieragg::hier::model {

double chainLatencyUs(const ExchangeLayout& x, double unit, double pulses, int* crossings) {
    double first = 0, slowest = 0;
    int crossed = 0;
    for (int r = 0; r + 1 < x.n; ++r) {
        const double hop = prefixRoundUs(x.between(r, r + 1), unit, true);
        first += hop;
        slowest = std::max(slowest, hop);
        crossed += x.crosses(r, r + 1);
    }
    if (crossings) *crossings = crossed;
    return first + (pulses - 1) * slowest;
}

double doublingLatencyUs(const ExchangeLayout& x, double S, int* crossing) {
    double us = 0;
    int crossed = 0;
    const int n = x.n;
    for (int d = 1; d < n; d *= 2) {
        int k = 0;
        if (x.hier) {
            const std::vector<int> out = x.leaving([n, d](int r) { return r + d; });  // >= n: none
            k = *std::max_element(out.begin(), out.end());
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
