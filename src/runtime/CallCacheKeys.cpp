#include "CallCacheKeys.hpp"

#include <cstdint>
#include <type_traits>

#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Selection.hpp"

namespace hieragg {

namespace {
// Appends the bytes of scalar fields only: a scalar has no padding.
class KeyWriter {
public:
    template <class T> KeyWriter& add(T v) {
        static_assert(std::is_scalar<T>::value, "only scalars: a struct would bring its padding");
        key_.append(reinterpret_cast<const char*>(&v), sizeof v);
        return *this;
    }
    KeyWriter& add(const hieragg_dtype_info& t) {
        return add(t.size).add(t.lb).add(t.extent).add(t.true_lb).add(t.true_extent);
    }
    std::string take() { return std::move(key_); }

private:
    std::string key_;
};

int offloadPath(const CollCall& c) { return hier::offloadServes(c) | hier::triggeredServes(c) << 1; }
}  // namespace

std::string scheduleCacheKey(const CollCall& c) {
    KeyWriter k;
    k.add(static_cast<int>(c.args.kind)).add(c.args.root).add(c.args.in_place).add(c.args.op_commutative);
    k.add(c.algorithm).add(offloadPath(c));
    k.add(static_cast<uint64_t>(c.args.scount)).add(static_cast<uint64_t>(c.args.rcount));
    k.add(static_cast<uint64_t>(c.segmentBytes));
    k.add(c.stype).add(c.rtype);
    k.add(c.args.sbuf == nullptr).add(c.args.rbuf == nullptr);
    return k.take();
}

std::string planCacheKey(const CollCall& c, const hier::RuleCandidate* rule) {
    KeyWriter k;
    k.add(static_cast<int>(c.args.kind)).add(hier::sizeClass(hier::modelBytes(c))).add(c.args.op_commutative);
    k.add(c.algorithm).add(offloadPath(c)).add(rule);
    return k.take();
}

}  // namespace hieragg
