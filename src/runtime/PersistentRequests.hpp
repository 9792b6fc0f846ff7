// A communicator's persistent requests (MPI-4 *_init): each request's arguments, copied at
// its init, which every start runs (the application may free or rewrite its arrays once the
// init returned). Their tags are the TagAllocation's (persistentCount, persistentTags).
#pragma once
#include <cstdint>
#include <unordered_map>

#include "OwnedCallArgs.hpp"

namespace hieragg {

struct PersistentRequests {
    std::unordered_map<uint32_t, OwnedCallArgs> args;

    // The arguments a start of request `id` runs: the init's copy, or `given` if there is none.
    const hieragg_coll_args& argsOf(uint32_t id, const hieragg_coll_args& given) const {
        auto held = args.find(id);
        return held != args.end() ? held->second.args() : given;
    }
};

}  // namespace hieragg
