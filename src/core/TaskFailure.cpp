// A Task's end on an error (docs/fault-tolerance.md): the ready steps dropped, its
// collectives abandoned, its messages cancelled, and those a cancel does not end drained
// until the PML is done with their buffers; then the Task is finished with that error.
#include "hieragg/Task.hpp"

namespace hieragg {

void Task::fail(int err) {
    if (status_ == 0) status_ = err;
    ready_.clear();
    readyHead_ = 0;
    if (draining_) return;  // already failed: drain() continues
    size_t live = 0;
    for (auto& a : active_) {
        if (!a.second) continue;
        if (kindOf(a.first) == StepKind::Collective) {
            tr_->abandonCollective(a.second);
        } else if (!tr_->cancelFailed(a.second)) {
            active_[live++] = a;  // still moving data: drained below
            continue;
        }
        a.second = nullptr;
    }
    active_.resize(live);
    activeHead_ = activeHoles_ = activeCursor_ = 0;
    draining_ = live != 0;
    finished_ = !draining_;
}

// A failed task's cancelled messages: tested (whatever their outcome) until all ended.
bool Task::drain() {
    size_t live = 0;
    for (auto& a : active_) {
        bool done = false;
        if (tr_->test(a.second, done) == 0 && !done) active_[live++] = a;  // an error released it
    }
    active_.resize(live);
    if (live == 0) {
        draining_ = false;
        finished_ = true;
        tempStore_.clear();
    }
    return finished_;
}

}  // namespace hieragg
