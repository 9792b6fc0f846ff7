// The Task's fragment pipelines (Schedule.hpp, FragmentPipeline): each template's steps
// run once per fragment, at most `window` fragments in flight, shifted as the pipeline
// says; a schedule may hold several templates one after another.
#include "hieragg/Task.hpp"

namespace hieragg {

int Task::pipelineOf(StepId step) const {
    const std::vector<FragmentPipeline>& ps = sched_->pipelines;
    for (size_t k = 0; k < ps.size(); ++k)
        if (step >= ps[k].begin && step < ps[k].end) return static_cast<int>(k);
    return -1;
}

size_t Task::runPipeline(RunId id) const {
    size_t k = 0;
    while (k + 1 < frags_.size() && id >= frags_[k + 1].base) ++k;
    return k;
}

StepKind Task::kindOf(RunId id) const {
    const Schedule& s = *sched_;
    if (id < static_cast<RunId>(s.steps.size())) return s.steps[static_cast<size_t>(id)].kind;
    const size_t k = runPipeline(id);
    const FragmentPipeline& p = s.pipelines[k];
    const auto t = static_cast<RunId>(p.templateSize());
    return s.steps[static_cast<size_t>(p.begin + (id - frags_[k].base) % t)].kind;
}

Step Task::stepAt(RunId id) const {
    const Schedule& s = *sched_;
    if (id < static_cast<RunId>(s.steps.size())) return s.steps[static_cast<size_t>(id)];
    const size_t k = runPipeline(id);
    const FragmentPipeline& p = s.pipelines[k];
    const auto t = static_cast<RunId>(p.templateSize());
    const auto f = static_cast<size_t>((id - frags_[k].base) / t);
    Step st = s.steps[static_cast<size_t>(p.begin + (id - frags_[k].base) % t)];
    auto shift = [&](BufRef& b) {
        if (b.slot >= p.slotStride.size()) return;
        const bool ring = b.slot < p.slotRing.size() && p.slotRing[b.slot];
        b.offset += static_cast<ptrdiff_t>(ring ? f % p.window : f) * p.slotStride[b.slot];
    };
    shift(st.src);
    shift(st.dst);
    if (st.kind == StepKind::Send || st.kind == StepKind::Recv) st.channel = segmentChannel(st.channel, f);
    if (f + 1 == p.fragments) {
        if (st.srcType.count) st.srcType.count = p.lastCount;
        if (st.dstType.count) st.dstType.count = p.lastCount;
    }
    return st;
}

void Task::openPipelines() {
    const Schedule& s = *sched_;
    frags_.resize(s.pipelines.size());
    auto base = static_cast<RunId>(s.steps.size());
    for (size_t k = 0; k < s.pipelines.size(); ++k) {
        const FragmentPipeline& p = s.pipelines[k];
        FragmentRun& run = frags_[k];
        const size_t t = p.templateSize();
        run.base = base;
        base += static_cast<RunId>(t * p.fragments);
        run.intraDeps.assign(t, 0);
        run.gatePending = 0;
        run.next = run.donePrefix = 0;
        for (size_t i = 0; i < t; ++i) {
            const Step& st = s.steps[p.begin + i];
            for (uint32_t j = 0; j < st.depCount; ++j) {
                if (s.deps[st.depBegin + j] >= p.begin)
                    ++run.intraDeps[i];
                else
                    ++run.gatePending;
            }
        }
        run.pending.assign(p.window * t, 0);
        run.left.assign(p.window, 0);
        run.done.assign(p.window, 0);
    }
    for (size_t k = 0; k < frags_.size(); ++k)
        if (frags_[k].gatePending == 0) startFragments(k);
}

// Starts every fragment the window admits (fragments below donePrefix are all done).
void Task::startFragments(size_t k) {
    const FragmentPipeline& p = sched_->pipelines[k];
    FragmentRun& run = frags_[k];
    const size_t t = p.templateSize();
    while (run.next < p.fragments && run.next < run.donePrefix + p.window) {
        const size_t f = run.next++;
        const size_t slot = f % p.window;
        run.left[slot] = t;
        run.done[slot] = 0;
        for (size_t i = 0; i < t; ++i) {
            run.pending[slot * t + i] = run.intraDeps[i];
            if (run.intraDeps[i] == 0) ready_.push_back(run.base + static_cast<RunId>(f * t + i));
        }
    }
}

// Every fragment is done: steps after the template that wait for it may run.
void Task::finishPipeline(size_t k) {
    const Schedule& s = *sched_;
    const FragmentPipeline& p = s.pipelines[k];
    for (StepId j = p.begin; j < p.end; ++j)
        for (uint32_t i = s.dependentBegin[j]; i < s.dependentBegin[j + 1]; ++i)
            if (s.dependents[i] >= p.end) release(s.dependents[i]);
}

void Task::release(StepId d) {
    const int k = pipelineOf(d);
    if (k < 0) {
        if (--pending_[d] == 0) ready_.push_back(d);
    } else if (--frags_[static_cast<size_t>(k)].gatePending == 0) {
        // The last edge into the template: the pipeline opens.
        startFragments(static_cast<size_t>(k));
    }
}

void Task::completeFragmentStep(RunId id) {
    const Schedule& s = *sched_;
    const size_t k = runPipeline(id);
    const FragmentPipeline& p = s.pipelines[k];
    FragmentRun& run = frags_[k];
    const size_t t = p.templateSize();
    const auto f = static_cast<size_t>((id - run.base) / static_cast<RunId>(t));
    const auto i = static_cast<StepId>((id - run.base) % static_cast<RunId>(t));
    const size_t slot = f % p.window;
    const StepId step = p.begin + i;
    for (uint32_t j = s.dependentBegin[step]; j < s.dependentBegin[step + 1]; ++j) {
        const StepId d = s.dependents[j];
        if (d < p.end && --run.pending[slot * t + static_cast<size_t>(d - p.begin)] == 0)
            ready_.push_back(run.base + static_cast<RunId>(f * t) + (d - p.begin));
    }
    if (--run.left[slot] != 0) return;
    run.done[slot] = 1;
    while (run.donePrefix < run.next && run.done[run.donePrefix % p.window]) {
        run.done[run.donePrefix % p.window] = 0;
        ++run.donePrefix;
    }
    if (run.donePrefix == p.fragments)
        finishPipeline(k);
    else
        startFragments(k);
}

}  // namespace hieragg
