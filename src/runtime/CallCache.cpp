#include "CallCache.hpp"

namespace hieragg {

void BlockingWait::complete(void* ctx, int status) {
    auto* w = static_cast<BlockingWait*>(ctx);
    w->status = status;
    w->done = true;
}

CallCache::CallCache() = default;
CallCache::~CallCache() = default;

CompiledCall* CallCache::compileFor(const std::shared_ptr<const Schedule>& sched, const hieragg_dtype_info& stype,
                                    const hieragg_dtype_info& rtype) {
    if (!sched || inFlight_ || failed_ || refused_ == sched) return nullptr;
    if (!compiled_) compiled_ = std::make_unique<CompiledCall>();
    ++compilations_;
    declined_ = "";
    if (!compiled_->compile(sched, stype, rtype, &declined_)) {
        refused_ = sched;
        return nullptr;
    }
    refused_.reset();
    stype_ = stype;
    rtype_ = rtype;
    return compiled_.get();
}

int CallCache::start(CompiledCall& f, Transport& tr, const CompiledCall::Binding& b, BlockingWait& w) {
    if (const int rc = f.start(tr, b)) {
        failed_ = true;
        return rc;
    }
    if (f.done()) {
        end(w, f.status());
        return 0;
    }
    inFlight_ = &f;
    waiter_ = &w;
    return 0;
}

void CallCache::end(BlockingWait& w, int status) {
    if (status != 0) failed_ = true;  // every later call of this communicator takes the general path
    BlockingWait::complete(&w, status);
}

void CallCache::wait(BlockingWait& w, Transport& tr) {
    while (!w.done) {
        if (inFlight_ && waiter_ == &w && inFlight_->mayHaveMoved() && inFlight_->poll()) {
            const int status = inFlight_->status();
            inFlight_ = nullptr;
            waiter_ = nullptr;
            end(w, status);
            return;
        }
        tr.progress();
    }
}

void CallCache::clear() {
    if (inFlight_) return;  // its caller is waiting on it
    compiled_.reset();
    refused_.reset();
}

}  // namespace hieragg
