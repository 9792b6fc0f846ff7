#include "CallCache.hpp"

namespace hieragg {

CallCache::CallCache() = default;
CallCache::~CallCache() = default;

CompiledCall* CallCache::findLast() {
    lastCompiled_ = nullptr;
    if (!last.rawValid) return nullptr;
    return compiledFor(last.schedule, last.rawStype, last.rawRtype);
}

CompiledCall* CallCache::compileFor(const std::shared_ptr<const Schedule>& sched, const hieragg_dtype_info& stype,
                                    const hieragg_dtype_info& rtype) {
    if (!sched || inFlight_ || failed_ || refused_ == sched) return nullptr;
    lastCompiled_ = nullptr;  // compiled_ is compiled anew, in place
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

void CallCache::clear() {
    if (inFlight_) return;  // its caller is waiting on it
    lastCompiled_ = nullptr;
    compiled_.reset();
    refused_.reset();
}

}  // namespace hieragg
