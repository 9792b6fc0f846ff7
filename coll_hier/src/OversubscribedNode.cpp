#include "hieragg/hier/OversubscribedNode.hpp"

namespace hieragg::hier {

double oversubscribedAlphaUs(double alphaUs, int ranks, int cores) {
    if (cores <= 0 || ranks <= cores) return alphaUs;
    return alphaUs + kNodeHandoffUs * (static_cast<double>(ranks) / cores - 1.0);
}

bool applyNodeOversubscription(CostParams& p, int ranks, int cores, const int (&alphaSet)[HIERAGG_LINK_CLASS_COUNT]) {
    bool changed = false;
    for (int link : {kLinkNuma, kLinkNode}) {
        if (alphaSet[link] & HIERAGG_COST_SET_ALPHA) continue;  // the user's value stands
        const double a = oversubscribedAlphaUs(p.link[link].alpha_us, ranks, cores);
        changed = changed || a != p.link[link].alpha_us;
        p.link[link].alpha_us = a;
    }
    return changed;
}

}  // namespace hieragg::hier
