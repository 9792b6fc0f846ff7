#include "TwoStageCall.hpp"

#include <new>
#include <utility>

namespace hieragg {

std::unique_ptr<TwoStageCall> TwoStageCall::create(OwnedCallArgs user, std::vector<uint64_t> sizesOut,
                                                   size_t learnedWords, hieragg_complete_fn done, void* ctx) {
    std::unique_ptr<TwoStageCall> call(new (std::nothrow) TwoStageCall);
    if (!call) return nullptr;
    call->user_ = std::move(user);
    call->out_ = std::move(sizesOut);
    call->learned_.assign(learnedWords ? learnedWords : 1, 0);
    call->done_ = done;
    call->ctx_ = ctx;
    return call;
}

int TwoStageCall::run(StageStart start) {
    start_ = std::move(start);
    hieragg_coll_args sizes = user_.args();
    // Stage 0 binds the size buffers; nothing of the user's is read or written.
    sizes.sbuf = out_.data();
    sizes.rbuf = learned_.data();
    sizes.in_place = 0;
    stage_ = 0;
    starting_ = true;
    const int rc = start_(sizes, 0, nullptr, stageDone, this);
    starting_ = false;
    if (rc) return rc;
    if (syncDone_) advance(syncStatus_);  // may complete the call (and release this)
    return 0;
}

void TwoStageCall::stageDone(void* self, int status) {
    auto* call = static_cast<TwoStageCall*>(self);
    if (call->starting_) {  // finished inside its own start: the starter continues
        call->syncDone_ = true;
        call->syncStatus_ = status;
        return;
    }
    call->advance(status);
}

void TwoStageCall::advance(int status) {
    if (status != 0 || stage_ == 1) return finish(status);
    stage_ = 1;
    syncDone_ = false;
    starting_ = true;
    const int rc = start_(user_.args(), 1, learned_.data(), stageDone, this);
    starting_ = false;
    if (rc) return finish(rc);
    if (syncDone_) finish(syncStatus_);
}

void TwoStageCall::finish(int status) {
    const hieragg_complete_fn done = done_;
    void* ctx = ctx_;
    delete this;  // the size buffers go before the caller learns the call is over
    done(ctx, status);
}

}  // namespace hieragg
