// A bounded map that evicts the least recently used entry: the per-communicator
// schedule and plan caches. A program that cycles through more signatures than
// the bound keeps its most recent ones instead of losing all of them at once. A byte
// budget (optional) bounds the entries' memory too: each insert says what its entry
// costs, and the least recently used entries go until the rest fit, but the newest entry
// always stays (a repeated call on a huge communicator still finds its schedule).
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
    explicit LruCache(size_t capacity, size_t byteBudget = 0)
        : capacity_(capacity ? capacity : 1), byteBudget_(byteBudget) {}

    // The value under `key` (now the most recently used), or nullptr.
    V* find(const std::string& key) {
        auto it = index_.find(key);
        if (it == index_.end()) return nullptr;
        order_.splice(order_.begin(), order_, it->second);
        return &it->second->value;
    }
    // Stores `value` under `key` as the most recently used, evicting the least recently
    // used entries while the cache holds more than its capacity or (with a byte budget)
    // more than its budget of `bytes`. Returns the stored value.
    V& insert(const std::string& key, V value, size_t bytes = 0) {
        auto it = index_.find(key);
        if (it != index_.end()) {
            bytes_ -= it->second->bytes;
            order_.erase(it->second);
            index_.erase(it);
        }
        order_.push_front(Entry{key, std::move(value), bytes});
        index_[key] = order_.begin();
        bytes_ += bytes;
        while (order_.size() > 1 && (order_.size() > capacity_ || (byteBudget_ > 0 && bytes_ > byteBudget_))) {
            bytes_ -= order_.back().bytes;
            index_.erase(order_.back().key);
            order_.pop_back();
        }
        return order_.front().value;
    }
    size_t size() const { return index_.size(); }
    size_t capacity() const { return capacity_; }
    size_t bytes() const { return bytes_; }

private:
    struct Entry {
        std::string key;
        V value;
        size_t bytes;
    };
    size_t capacity_;
    size_t byteBudget_;
    size_t bytes_ = 0;
    std::list<Entry> order_;  // most recently used first
    std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;
};

}  // namespace hieragg
