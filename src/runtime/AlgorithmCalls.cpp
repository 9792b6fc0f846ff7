#include "AlgorithmCalls.hpp"

#include <algorithm>

#include "hieragg/hier/AlgorithmRegistry.hpp"

namespace hieragg {

void countServed(const CollCall& call, const Schedule& sched, hieragg_comm& c) {
    const std::vector<hier::AlgorithmInfo>& rows = hier::allAlgorithms();
    CommCounters& counters = *c.counters;
    if (c.cache.last.isLast && c.cache.last.servedValid) {
        countLastServed(c);
        return;
    }
    // A handful of rows at most (one per stage): no allocation on every call.
    struct Used {
        const hier::AlgorithmInfo* row[LastCall::kMaxServed];
        size_t n = 0;
        const hier::AlgorithmInfo** begin() { return row; }
        const hier::AlgorithmInfo** end() { return row + n; }
        void push_back(const hier::AlgorithmInfo* a) {
            if (n < LastCall::kMaxServed) row[n++] = a;
        }
    } used;
    if (call.plan) {
        // A forced "flat" row serves through the tree it runs over the whole communicator: both count.
        const hier::AlgorithmInfo* forced = hier::algorithmByValue(call.args.kind, call.algorithm);
        if (forced && forced->pricing == hier::Pricing::FlatMarker && call.plan->mode == hier::Plan::Mode::Flat)
            used.push_back(forced);
        for (const hier::StageChoice& s : call.plan->stages)
            if (s.algo && std::find(used.begin(), used.end(), s.algo) == used.end()) used.push_back(s.algo);
    } else if (const hier::AlgorithmInfo* a = hier::algorithmByValue(call.args.kind, call.algorithm)) {
        used.push_back(a);
    } else {
        // Not model-driven and not forced: the recipe names what it ran ("ring", "pairwise(...)").
        const std::string& name = sched.algorithm;
        if (const hier::AlgorithmInfo* a =
                hier::algorithmByName(call.args.kind, name.substr(0, name.find_first_of("(+: "))))
            used.push_back(a);
    }
    for (const hier::AlgorithmInfo* a : used) counters.served(static_cast<size_t>(a - rows.data()));
    if (c.cache.last.isLast) {
        for (size_t i = 0; i < used.n; ++i) c.cache.last.served[i] = static_cast<size_t>(used.row[i] - rows.data());
        c.cache.last.servedCount = used.n;
        c.cache.last.servedValid = true;
    }
}

}  // namespace hieragg
