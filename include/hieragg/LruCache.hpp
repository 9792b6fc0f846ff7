// A bounded map that evicts the least recently used entry: the per-communicator
// schedule and plan caches. A program that cycles through more signatures than
// the bound keeps its most recent ones instead of losing all of them at once.
#pragma once
#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>

namespace hieragg {

template <class V>
class LruCache {
public:
    explicit LruCache(size_t capacity) : capacity_(capacity ? capacity : 1) {}

    // The value under `key` (now the most recently used), or nullptr.
    V* find(const std::string& key) {
        auto it = index_.find(key);
        if (it == index_.end()) return nullptr;
        order_.splice(order_.begin(), order_, it->second);
        return &it->second->second;
    }
    // Stores `value` under `key` as the most recently used, evicting the least recently
    // used entry when full. Returns the stored value.
    V& insert(const std::string& key, V value) {
        if (V* v = find(key)) return *v = std::move(value);
        if (index_.size() >= capacity_) {
            index_.erase(order_.back().first);
            order_.pop_back();
        }
        order_.emplace_front(key, std::move(value));
        index_[key] = order_.begin();
        return order_.front().second;
    }
    size_t size() const { return index_.size(); }
    size_t capacity() const { return capacity_; }

private:
    size_t capacity_;
    std::list<std::pair<std::string, V>> order_;  // most recently used first
    std::unordered_map<std::string, typename std::list<std::pair<std::string, V>>::iterator> index_;
};

}  // namespace hieragg
