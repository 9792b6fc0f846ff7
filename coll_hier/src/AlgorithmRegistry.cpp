// The registry's look-ups over the algorithm rows (AlgorithmRegistry.hpp): by collective, by
// name and by enum value, and the needs a call must meet. The rows themselves are the units'
// (coll_hier/src/algorithms/), listed in algorithms/AlgorithmList.cpp.
#include <algorithm>
#include <map>
#include <mutex>

#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/SwitchTree.hpp"

namespace hieragg::hier {

namespace {
bool contiguousGroups(const Hierarchy& h) {
    for (int l = 0; l < h.levels(); ++l)
        for (int g = 0; g < h.groupCount(l); ++g) {
            const std::vector<int>& m = h.groupMembers(l, g);
            if (!m.empty() && m.back() - m.front() + 1 != static_cast<int>(m.size())) return false;
        }
    return true;
}
bool equalGroups(const Hierarchy& h) {
    for (int l = 0; l < h.levels(); ++l)
        for (int g = 1; g < h.groupCount(l); ++g)
            if (h.groupMembers(l, g).size() != h.groupMembers(l, 0).size()) return false;
    return true;
}
}  // namespace

const std::vector<const AlgorithmInfo*>& algorithmsOf(hieragg_coll_kind coll) {
    // Indexed once (thread-safe static init): calls look entries up without allocating.
    static const std::vector<std::vector<const AlgorithmInfo*>> byColl = [] {
        std::vector<std::vector<const AlgorithmInfo*>> v(HIERAGG_COLL_KIND_COUNT);
        for (const AlgorithmInfo& a : allAlgorithms()) v[a.coll].push_back(&a);
        return v;
    }();
    static const std::vector<const AlgorithmInfo*> none;
    return coll >= 0 && coll < HIERAGG_COLL_KIND_COUNT ? byColl[coll] : none;
}

const char* algorithmNames(hieragg_coll_kind coll) {
    // Built once per collective; the strings live as long as the process (the MCA enums point at them).
    static std::mutex m;
    static std::map<int, std::string> names;
    std::lock_guard<std::mutex> lock(m);
    auto it = names.find(coll);
    if (it == names.end()) {
        std::string s = "auto";
        for (const AlgorithmInfo* a : algorithmsOf(coll)) s += std::string(",") + a->name;
        it = names.emplace(coll, s).first;
    }
    return it->second.c_str();
}

const AlgorithmInfo* algorithmByValue(hieragg_coll_kind coll, int value) {
    if (value <= 0) return nullptr;
    const std::vector<const AlgorithmInfo*>& all = algorithmsOf(coll);
    return value <= static_cast<int>(all.size()) ? all[value - 1] : nullptr;
}

const AlgorithmInfo* algorithmByName(hieragg_coll_kind coll, const std::string& name) {
    for (const AlgorithmInfo* a : algorithmsOf(coll))
        if (name == a->name) return a;
    return nullptr;
}

int algorithmValue(const AlgorithmInfo& a) {
    const auto& all = algorithmsOf(a.coll);
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i] == &a) return static_cast<int>(i) + 1;
    return 0;
}

bool offloadServes(const CollCall& c) {
    if (!c.offload || !isDecomposed(c)) return false;
    const OffloadCaps& o = *c.offload;
    switch (factsOf(c.args.kind).offload) {
    case OffloadOp::Barrier: return o.barrier;
    case OffloadOp::Bcast: {
        // Bytes padded to a multiple of the members (the provider's scatter+allgather).
        const size_t bytes = c.args.rcount * c.rtype.size;
        return o.bcast && bytes > 0 && o.members > 0 && o.maxBytes >= static_cast<size_t>(o.members) &&
               bytes + static_cast<size_t>(o.members) <= o.maxCount;
    }
    case OffloadOp::Allreduce: {
        if (!c.args.op_commutative || c.elemKind <= 0 || c.elemKind >= HIERAGG_ELEM_COUNT || c.opKind <= 0 ||
            c.opKind >= HIERAGG_OPK_COUNT || c.args.rcount == 0)
            return false;
        if (!(o.allreduceOps[c.elemKind] & (1u << c.opKind))) return false;
        // Pulses are offloaded one by one: the per-pulse count must fit.
        const size_t perPulse = c.rtype.size ? std::max<size_t>(1, c.segmentBytes / c.rtype.size) : c.args.rcount;
        if (std::min(perPulse, c.args.rcount) > o.maxCount || o.maxBytes < c.rtype.size) return false;
        // Floating sums and products depend on the combination order: offload them under
        // coll_hieragg_reproducible only where the provider fixes it.
        const bool floating = c.elemKind == HIERAGG_ELEM_FLOAT || c.elemKind == HIERAGG_ELEM_DOUBLE;
        const bool orderMatters = floating && (c.opKind == HIERAGG_OPK_SUM || c.opKind == HIERAGG_OPK_PROD);
        return !(c.fixedOrderRequired && orderMatters && !o.fixedOrder);
    }
    case OffloadOp::None: break;
    }
    return false;
}

bool triggeredServes(const CollCall& c) {
    if (!c.offload || !c.offload->triggered || !isDecomposed(c)) return false;
    return c.args.kind == HIERAGG_BCAST && c.args.rcount * c.rtype.size > 0;
}

std::string unmetNeed(const AlgorithmInfo& a, const CollCall& c) {
    if ((a.needs & kNeedsIntracomm) && c.inter) return "needs an intracommunicator";
    if ((a.needs & kNeedsCommutativeOp) && !c.args.op_commutative) return "needs a commutative operation";
    if ((a.needs & kNeedsDecomposition) && !isDecomposed(c))
        return "needs a decomposition that splits the communicator";
    if ((a.needs & kNeedsContiguousGroups) && isDecomposed(c) && !c.args.op_commutative &&
        !contiguousGroups(*c.hierarchy))
        return "needs contiguous groups (or a commutative operation)";
    if ((a.needs & kNeedsContiguousRanks) && isDecomposed(c) && !contiguousGroups(*c.hierarchy))
        return "needs contiguous groups";
    if ((a.needs & kNeedsEqualGroups) && isDecomposed(c) && !equalGroups(*c.hierarchy))
        return "needs groups of equal size";
    if ((a.needs & kNeedsPowerOfTwo) && (c.size & (c.size - 1)) != 0) return "needs a power-of-two size";
    if ((a.needs & kNeedsSwitchLevels) && isDecomposed(c) &&
        (!c.stageLinks || leafSwitchLevel(*c.hierarchy, *c.stageLinks) < 0))
        return "needs switch levels (coll_hieragg_split=topology:PATH)";
    if ((a.needs & kNeedsOffload) && !offloadServes(c))
        return "needs the offload backend to support this call (coll_hieragg_offload, docs/offload.md)";
    if ((a.needs & kNeedsTriggered) && !triggeredServes(c))
        return "needs an offload provider with triggered operations (FI_TRIGGER, e.g. "
               "coll_hieragg_ofi_provider=sockets; docs/offload.md)";
    return {};
}

const AlgorithmInfo* forcedAlgorithm(const CollCall& c, std::string* refusal) {
    const AlgorithmInfo* a = algorithmByValue(c.args.kind, c.algorithm);
    if (!a) return nullptr;
    std::string why = unmetNeed(*a, c);
    if (why.empty()) return a;
    if (refusal) *refusal = why;
    return nullptr;
}

}  // namespace hieragg::hier
