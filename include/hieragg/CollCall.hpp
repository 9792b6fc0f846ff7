// One collective call as the recipes see it: the shim's arguments plus what the
// core knows about the communicator (rank, size, decomposition) and the layouts
// of the datatypes. Recipes turn a CollCall into this rank's Schedule.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "hieragg/abi.h"

namespace hieragg {
namespace hier {
class Hierarchy;
struct Plan;
struct CostParams;
}

// What the communicator's offload backend can run over the leader space (docs/offload.md):
// filled when the communicator joined a fabric collective group, shared by its calls.
struct OffloadCaps {
    bool barrier = false, bcast = false;
    uint32_t allreduceOps[HIERAGG_ELEM_COUNT] = {};  // bit o set: HIERAGG_OPK o on that element kind
    size_t maxCount = 0;       // elements per operation the provider takes
    size_t maxBytes = 0;       // bytes per operation that complete (recipes cut longer ones)
    bool fixedOrder = false;   // the provider combines in an order fixed by membership
    int members = 0;           // leaders in the group
    bool preferred = false;    // coll_hieragg_offload=ofi: wherever it serves, not where the model says
    // Triggered operations (FI_TRIGGER on counters, docs/offload.md): the leaders can run a
    // chain whose relays forward by sends the provider fires when a receive completes.
    bool triggered = false;
};

struct CollCall {
    hieragg_coll_args args{};
    int rank = 0;
    int size = 1;
    bool inter = false;
    int remoteSize = 0;
    hieragg_dtype_info stype{}, rtype{};           // layouts of args.stype / args.rtype
    std::vector<hieragg_dtype_info> stypes, rtypes; // alltoallw: one per peer
    const hier::Hierarchy* hierarchy = nullptr;     // nullptr or trivial: run flat
    size_t segmentBytes = 64 * 1024;                // pipeline segment / pulse size
    int algorithm = 0;                              // per-collective override, 0 = auto
    // Selection (coll_hier Selection.hpp): the plan the runtime chose for this signature;
    // null: the recipe asks the model itself, with `costs` (null: defaults) and
    // `stageLinks` (link class of each stage of the hierarchy; null: inferred).
    std::shared_ptr<const hier::Plan> plan;
    const hier::CostParams* costs = nullptr;
    const std::vector<int>* stageLinks = nullptr;
    // Type II switch trees (coll_hier SwitchTree.hpp): aggregation entries per switch
    // (coll_hieragg_switch_entries, 0 = none) and children per switch (_switch_degree).
    int switchEntries = 16;
    int switchDegree = 32;
    // Offload: the communicator's backend (null: none), the call's element kind and
    // operation (HIERAGG_ELEM_* / HIERAGG_OPK_*), and whether the combination order must be
    // fixed (coll_hieragg_reproducible=order|strong, branch i8-repro, sets it).
    const OffloadCaps* offload = nullptr;
    int elemKind = 0, opKind = 0;
    bool fixedOrderRequired = false;
    // Two-stage v-variants (coll_hier TwoStage.hpp, docs/recipes-data-movement.md): 0 = one
    // stage; 1 = the size stage (sbuf/rbuf are this rank's uint64 sizes out / learned in);
    // 2 = the data stage, `learnedBytes` holding what stage 1 delivered to this rank.
    int varStage = 0;
    const uint64_t* learnedBytes = nullptr;
    // coll_hieragg_max_temp_bytes (0 = none): the same on every rank, so recipes may size
    // their plans by it where no rank can check the others' needs (the v-variants).
    size_t maxTempBytes = 0;

    // Bytes a buffer of `count` elements of `t` spans (what a temporary must hold), and the
    // bias that puts element 0 at the temporary's origin.
    static size_t span(const hieragg_dtype_info& t, size_t count) {
        if (count == 0) return 0;
        return static_cast<size_t>(t.true_extent + static_cast<ptrdiff_t>(count - 1) * t.extent);
    }
    static ptrdiff_t bias(const hieragg_dtype_info& t) { return -t.true_lb; }
};

}  // namespace hieragg
