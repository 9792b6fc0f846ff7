#include "CallCacheKeys.hpp"

#include <cstdint>

#include "CallVectors.hpp"
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
    k.add(c.args.topology).add(c.args.indegree).add(c.args.outdegree);
    // The recipes turn the vectors into byte offsets at build time (CallBinding drops the
    // pointers), so equal values mean an equal schedule.
    const VectorDigest v = digestVectors(c);
    k.add(v.hash).add(v.bytes);
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
