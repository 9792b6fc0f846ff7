// One of the leader space's fabric collectives (barrier, bcast, allreduce) run over the
// PML instead, among the same leaders: what an offload transport does with an operation
// once the leaders agreed the fabric failed (docs/offload.md, "Failure handling"). Every
// member sends its part straight to every other (n is the number of nodes, small), and an
// allreduce combines the inputs in member order, so every leader computes the same result.
// A leader whose fabric operation did complete still takes part, with its kept input, so
// the others get their messages; it discards the result.
#pragma once
#include <cstdint>
#include <vector>

#include "hieragg/Transport.hpp"

namespace hieragg::ofi {

// Bytes of one HIERAGG_ELEM_* element (0 for NONE).
size_t elemBytes(int elem);
// dst[i] = dst[i] op src[i] for HIERAGG_ELEM_* / HIERAGG_OPK_*; false if the pair is unknown.
bool reduceElements(int elem, int opKind, const void* src, void* dst, size_t count);

struct LeaderGroup {
    Transport* pml = nullptr;
    void* comm = nullptr;
    std::vector<int> ranks;  // communicator rank of each member, in leader order
    int me = -1;
    int tagBase = 0;  // operation `seq` uses tag tagBase - seq % kTagWindow
    static constexpr uint64_t kTagWindow = 4096;
};

class LeaderOpOverPml {
public:
    LeaderOpOverPml() = default;
    LeaderOpOverPml(const LeaderOpOverPml&) = delete;
    LeaderOpOverPml& operator=(const LeaderOpOverPml&) = delete;
    ~LeaderOpOverPml();
    // `in`: this member's input (allreduce: what.count elements; bcast: what.count bytes,
    // read on the root only). Returns non-zero if a message could not be posted.
    int start(const LeaderGroup& g, const FabricCollective& what, uint64_t seq, const char* in);
    // Sets done once every message moved; the allreduce result is combined then.
    int test(bool& done);
    // The result (allreduce: count elements; bcast: count bytes) once done.
    const std::vector<char>& result() const { return result_; }

private:
    const LeaderGroup* g_ = nullptr;
    FabricCollective what_;
    std::vector<void*> reqs_;
    std::vector<char> inputs_;  // allreduce: every member's input, in member order
    std::vector<char> result_;
    // Barrier: one byte each way; only its arrival matters, and static storage outlives
    // a request abandoned in flight.
    static inline char token_[2] = {0, 0};
    bool finished_ = false;
};

}  // namespace hieragg::ofi
