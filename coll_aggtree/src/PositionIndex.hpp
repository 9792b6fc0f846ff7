// Internal: flat open-addressing map from tree position to rank. Positions of a
// hierarchical k-nomial tree are sparse (cnt can be far larger than the number of
// processes), so occupancy is indexed by occupied position, never by cnt.
#pragma once
#include <cstdint>
#include <vector>

namespace hieragg::aggtree {

class PositionIndex {
public:
    static constexpr int kAbsent = -1;

    explicit PositionIndex(std::size_t expected) {
        std::size_t cap = 16;
        while (cap < 2 * expected) cap *= 2;  // load factor <= 1/2 keeps probes short
        keys_.assign(cap, kEmptyKey);
        values_.assign(cap, kAbsent);
        mask_ = cap - 1;
    }

    void insert(std::uint64_t position, int rank) {
        std::size_t i = slot(position);
        while (keys_[i] != kEmptyKey && keys_[i] != position) i = (i + 1) & mask_;
        keys_[i] = position;
        values_[i] = rank;
    }

    int find(std::uint64_t position) const {
        for (std::size_t i = slot(position);; i = (i + 1) & mask_) {
            if (keys_[i] == position) return values_[i];
            if (keys_[i] == kEmptyKey) return kAbsent;
        }
    }

    bool contains(std::uint64_t position) const { return find(position) != kAbsent; }

private:
    // No real position reaches 2^64 − 1 (positions are checked against overflow).
    static constexpr std::uint64_t kEmptyKey = ~std::uint64_t{0};

    // splitmix64 finaliser: positions are multiples of large powers of k, so mix all bits.
    std::size_t slot(std::uint64_t x) const {
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebULL;
        x ^= x >> 31;
        return static_cast<std::size_t>(x) & mask_;
    }

    std::vector<std::uint64_t> keys_;
    std::vector<int> values_;
    std::size_t mask_ = 0;
};

}  // namespace hieragg::aggtree
