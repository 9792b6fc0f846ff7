// The last parse of each input file, per process: every communicator's
// decomposition reads the same file:/topology: file, and a 10 MB topology takes
// seconds to parse. An entry is reused only while the file's identity (device,
// inode, size, modification time) is unchanged; a parse error is not cached.
#pragma once
#include <sys/stat.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace hieragg::hier {

template <class T>
class ParsedFileCache {
public:
    // Returns the cached value for `path`, or parse(path)'s (which may throw).
    std::shared_ptr<const T> get(const std::string& path, const std::function<T(const std::string&)>& parse) {
        Identity id;
        const bool known = identify(path, id);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            auto it = entries_.find(path);
            if (known && it != entries_.end() && it->second.id == id) return it->second.value;
        }
        auto value = std::make_shared<const T>(parse(path));
        if (known) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (entries_.size() >= kMaxEntries) entries_.clear();
            entries_[path] = {id, value};
        }
        return value;
    }

private:
    static constexpr size_t kMaxEntries = 8;
    struct Identity {
        dev_t dev = 0;
        ino_t ino = 0;
        off_t size = 0;
        long long mtimeNs = 0;
        bool operator==(const Identity& o) const {
            return dev == o.dev && ino == o.ino && size == o.size && mtimeNs == o.mtimeNs;
        }
    };
    static bool identify(const std::string& path, Identity& id) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
        id = {st.st_dev, st.st_ino, st.st_size,
              static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec};
        return true;
    }
    struct Entry {
        Identity id;
        std::shared_ptr<const T> value;
    };
    std::mutex mutex_;
    std::unordered_map<std::string, Entry> entries_;
};

}  // namespace hieragg::hier
