#include "CallCacheKeys.hpp"

#include <cstdint>

#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg {

namespace {
int offloadPath(const CollCall& c) { return hier::offloadServes(c) | hier::triggeredServes(c) << 1; }
}  // namespace

void writeScheduleKey(const CollCall& c, CallKey& k) {
    k.add(static_cast<int>(c.args.kind)).add(c.args.root).add(c.args.in_place).add(c.args.op_commutative);
    k.add(c.algorithm).add(offloadPath(c));
    k.add(static_cast<uint64_t>(c.args.scount)).add(static_cast<uint64_t>(c.args.rcount));
    k.add(static_cast<uint64_t>(c.segmentBytes));
    k.add(c.stype).add(c.rtype);
    k.add(c.args.sbuf == nullptr).add(c.args.rbuf == nullptr);
    if (vectorsInScheduleKey(c)) {
        // The recipes turn these into byte offsets at build time (CallBinding drops the
        // pointers), so equal values mean an equal schedule.
        const KeyedVectors v = keyedVectors(c.args);
        k.add(v.counts != nullptr).add(v.displs != nullptr);
        for (int i = 0; v.counts && i < c.size; ++i) k.add(v.counts[i]);
        for (int i = 0; v.displs && i < c.size; ++i) k.add(v.displs[i]);
    }
}

KeyedVectors keyedVectors(const hieragg_coll_args& a) {
    if (a.kind == HIERAGG_REDUCE_SCATTER) return {true, a.rcounts, nullptr};
    if (a.kind == HIERAGG_ALLGATHERV) return {true, a.rcounts, a.rdispls};
    return {};
}

bool vectorsInScheduleKey(const CollCall& c) {
    return (c.args.kind == HIERAGG_REDUCE_SCATTER || c.args.kind == HIERAGG_ALLGATHERV) && !c.inter &&
           c.varStage == 0;
}

std::string scheduleCacheKey(const CollCall& c) {
    CallKey k;
    writeScheduleKey(c, k);
    return k.str();
}

void writePlanKey(const CollCall& c, const hier::RuleCandidate* rule, CallKey& k) {
    k.add(static_cast<int>(c.args.kind)).add(hier::sizeClass(hier::modelBytes(c))).add(c.args.op_commutative);
    k.add(c.algorithm).add(offloadPath(c)).add(rule);
}

std::string planCacheKey(const CollCall& c, const hier::RuleCandidate* rule) {
    CallKey k;
    writePlanKey(c, rule, k);
    return k.str();
}

}  // namespace hieragg
