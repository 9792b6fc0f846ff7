// The offload backends linked into this process (hieragg/OffloadBackend.hpp): a few names
// at most, registered by static initialisers before any communicator exists.
#include <cstring>
#include <utility>
#include <vector>

#include "hieragg/OffloadBackend.hpp"

namespace hieragg {

namespace {
// A function-local static: registrations run from other libraries' static initialisers,
// in an order the linker decides.
std::vector<std::pair<const char*, OffloadBackendFn>>& backends() {
    static std::vector<std::pair<const char*, OffloadBackendFn>> all;
    return all;
}
}  // namespace

bool registerOffloadBackend(const char* name, OffloadBackendFn open) {
    backends().emplace_back(name, open);
    return true;
}

OffloadBackendFn offloadBackend(const char* name) {
    for (const auto& b : backends())
        if (std::strcmp(b.first, name) == 0) return b.second;
    return nullptr;
}

}  // namespace hieragg
