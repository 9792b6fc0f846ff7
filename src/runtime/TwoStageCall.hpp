// Runs a hierarchical gatherv / scatterv / alltoallv / alltoallw as its two stages
// (coll_hier TwoStage.hpp): the size stage, whose schedule moves uint64 byte counts
// between this object's buffers, then the data stage, built from what arrived. Like
// the strong-reproducible chain (ReproducibleCall.hpp), the stages are two links of a
// chain: the caller reserves two call numbers on every pair when it launches the call
// and starts link 1 from link 0's completion, so calls started meanwhile never shift
// the tags.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "OwnedCallArgs.hpp"
#include "hieragg/abi.h"

namespace hieragg {

// Starts stage `link` (0 = sizes, 1 = data) of the call; `args` are the buffers to bind
// (stage 0: the size buffers), `learned` what stage 0 delivered (stage 1). Returns an
// error without calling `done` if nothing started.
using StageStart = std::function<int(const hieragg_coll_args& args, int link, const uint64_t* learned,
                                     hieragg_complete_fn done, void* ctx)>;

class TwoStageCall {
public:
    // `user`: the call's arguments, held until the data stage has started (OwnedCallArgs.hpp);
    // `sizesOut`: the words this rank sends in stage 1; `learnedWords`: how many it receives.
    static std::unique_ptr<TwoStageCall> create(OwnedCallArgs user, std::vector<uint64_t> sizesOut,
                                                size_t learnedWords, hieragg_complete_fn done, void* ctx);
    // Starts stage 0 (stage 1 from its completion). Returns an error if stage 0 could not
    // start (the caller still owns this object); otherwise the call owns itself and
    // completes the caller's call once.
    int run(StageStart start);

private:
    TwoStageCall() = default;
    static void stageDone(void* self, int status);
    void advance(int status);
    void finish(int status);

    OwnedCallArgs user_;
    std::vector<uint64_t> out_, learned_;
    StageStart start_;
    int stage_ = 0;
    bool starting_ = false, syncDone_ = false;
    int syncStatus_ = 0;
    hieragg_complete_fn done_ = nullptr;
    void* ctx_ = nullptr;
};

}  // namespace hieragg
