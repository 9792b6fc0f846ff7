// Builds one rank's Schedule. Algorithms call send/recv/copy/reduce with the
// steps each one must wait for; join() merges several into one handle.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "hieragg/Schedule.hpp"

namespace hieragg {

// A set of steps to wait for; kNoStep entries are ignored.
class Deps {
public:
    Deps() = default;
    Deps(StepId s) { add(s); }  // NOLINT(google-explicit-constructor): a single step is a dep set
    Deps(std::initializer_list<StepId> l) { for (StepId s : l) add(s); }
    Deps(const std::vector<StepId>& v) { for (StepId s : v) add(s); }  // NOLINT
    void add(StepId s) { if (s != kNoStep) ids_.push_back(s); }
    void add(const Deps& d) { ids_.insert(ids_.end(), d.ids_.begin(), d.ids_.end()); }
    const std::vector<StepId>& ids() const { return ids_; }
    bool empty() const { return ids_.empty(); }
private:
    std::vector<StepId> ids_;
};

class ScheduleBuilder {
public:
    explicit ScheduleBuilder(std::string algorithm = {}) { sched_.algorithm = std::move(algorithm); }

    // Messages to or from a negative peer (MPI_PROC_NULL) are dropped: kNoStep.
    StepId send(int peer, BufRef src, TypeRef type, const Deps& deps = {}, uint32_t channel = 0);
    StepId recv(int peer, BufRef dst, TypeRef type, const Deps& deps = {}, uint32_t channel = 0);
    // A send (outgoing) or a receive of `buf`: for the algorithms written once for both
    // directions (a gather is a scatter with every message reversed).
    StepId transfer(bool outgoing, int peer, BufRef buf, TypeRef type, const Deps& deps = {}, uint32_t channel = 0);
    StepId copy(BufRef src, TypeRef srcType, BufRef dst, TypeRef dstType, const Deps& deps = {});
    // dst = src op dst (the operation is the call's).
    StepId reduce(BufRef src, BufRef dst, TypeRef type, const Deps& deps = {});
    // An offloaded collective over the leader space (Schedule.hpp, StepKind::Collective);
    // `segment`: bytes per segment of a triggered chain (FabricCollective::segment).
    StepId collective(uint8_t fabricKind, BufRef src, BufRef dst, size_t count, int root, const Deps& deps = {},
                      size_t segment = 0);
    // A step that completes when all of deps have; kNoStep if deps is empty.
    StepId join(const Deps& deps);

    // Steps added between beginFragment() and endFragment() are a fragment template
    // (Schedule.hpp, FragmentPipeline): `p` gives fragments, window, strides and the last
    // fragment's count; its begin/end are filled here. Templates follow one another.
    void beginFragment();
    void endFragment(FragmentPipeline p);

    BufRef temp(size_t bytes, ptrdiff_t bias = 0);
    void setLocalComm(bool local) { local_ = local; }
    void appendAlgorithm(const std::string& part);
    const std::string& algorithm() const { return sched_.algorithm; }
    size_t stepCount() const { return sched_.steps.size(); }

    Schedule finish();

private:
    StepId add(Step s, const Deps& deps);
    Schedule sched_;
    bool local_ = false;
    StepId fragmentBegin_ = kNoStep;
};

}  // namespace hieragg
