#include "model/ScatterAfterReduce.hpp"

#include <algorithm>

#include "hieragg/hier/CollectiveFacts.hpp"
#include "model/SharedCoresModel.hpp"

namespace hieragg::hier::model {

double withScatterAfterReduceUs(double treeUs, const CollCall& c, const CostParams& p, const std::vector<int>& links,
                                double bytes) {
    if (factsOf(c.args.kind).treeTerms != TreeTerms::ScatterAfter || c.size <= 1) return treeUs;
    // The scatter's sends are posted at once (ReduceScatter.cpp, scatterPulse): their start-ups
    // overlap, so one alpha, then one theta per message and the bytes in sequence at rank 0
    // (docs/selection.md: n-1 alphas made the tree lose to a ring of n-1 dependent hops).
    const LinkCost& l = p.link[links.back()];
    double us = treeUs;
    us += l.alpha_us + (c.size - 1) * l.theta_us + (c.size - 1.0) / c.size * bytes * l.beta_us_per_byte;
    // One node with more ranks than cores: rank 0's reduce waits for every other rank to
    // have run once, and so does its scatter (every rank waits for its block), so each
    // phase takes n / cores start-ups, as a ring step does, and the next call cannot
    // overlap it. Measured (8 B, 2 cores, interleaved): reduce + scatter 10.8 / 43 us
    // against recursive halving's 7.8 / 24 us on 4 / 8 ranks.
    if (crowdedOneNode(c, p)) us = std::max(us, 2.0 * c.size / p.nodeCores * l.alpha_us);
    return us;
}

}  // namespace hieragg::hier::model
