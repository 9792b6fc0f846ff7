#include "Runtime.hpp"

#include "hieragg/hier/OversubscribedNode.hpp"

namespace hieragg {

Runtime* Runtime::instance_ = nullptr;

namespace {
// The pool of finished tasks (takeTask): enough for the calls a loop keeps in flight;
// a task that ran a large schedule is freed rather than kept.
constexpr size_t kSpareTasks = 16;
}

Runtime::Runtime(const hieragg_transport& tr, const hieragg_config& cfg)
    : transport_(tr), config_(cfg), split_(cfg.split ? cfg.split : "") {
    config_.split = split_.c_str();
    ofiProvider_ = cfg.ofi_provider ? cfg.ofi_provider : "";
    config_.ofi_provider = ofiProvider_.c_str();
    {
        std::string why;
        if (config_.pml_max_tag <= 0) config_.pml_max_tag = INT32_MAX;
        tags_ = TagLayout::forMaxTag(config_.pml_max_tag, config_.tag_top, why);
        const uint32_t fromPml = tags_.window();
        tags_ = tags_.capped(config_.tag_window);
        if (tags_.window() < TagLayout::kMaxWindow)
            verbose(2, "hieragg: tags: the PML's MPI_TAG_UB is " + std::to_string(config_.pml_max_tag) +
                           ": call numbers wrap after " + std::to_string(tags_.window()) +
                           (tags_.window() < fromPml ? " (coll_hieragg_tag_window)" : "") +
                           " (more calls in flight between two ranks wait for the oldest)");
    }
    ofiInject_ = cfg.ofi_inject_error ? cfg.ofi_inject_error : "";
    config_.ofi_inject_error = ofiInject_.c_str();
    // Zero (a configuration that never set them): the MCA defaults.
    if (!(config_.ofi_join_timeout > 0)) config_.ofi_join_timeout = 60.0;
    if (config_.ofi_op_timeout == 0) config_.ofi_op_timeout = 300.0;
    costs_ = hier::costParamsFrom(cfg.link_cost);
    hier::applyOffloadCost(costs_, cfg.ofi_cost);
    hier::applyNodeOversubscription(costs_, cfg.node_ranks, cfg.node_cores, cfg.link_cost_set);
    costs_.nodeCores = cfg.node_cores;
    if (cfg.network_exchange_set && cfg.network_exchange_us >= 0)
        costs_.link[hier::kLinkNetwork].exchange_us = cfg.network_exchange_us;
    config_.rules_file = nullptr;  // the shim's string need not outlive init
    if (cfg.rules_file && *cfg.rules_file) {
        rulesPath_ = cfg.rules_file;
        config_.rules_file = rulesPath_.c_str();
        auto rules = std::make_shared<hier::RulesFile>();
        if (hier::loadRulesFile(rulesPath_, *rules, rulesProblem_)) rules_ = std::move(rules);
    }
    // Measured at setup: the node and network links (numa and switch keep their MCA values).
    for (int link : {hier::kLinkNode, hier::kLinkNetwork}) {
        hier::CalibrationPolicy& p = policy_[link];
        p.autocalibrate = cfg.autocalibrate != 0;
        p.rulesFile = !rulesPath_.empty();
        p.alphaExplicit = (cfg.link_cost_set[link] & HIERAGG_COST_SET_ALPHA) != 0;
        p.betaExplicit = (cfg.link_cost_set[link] & HIERAGG_COST_SET_BETA) != 0;
        p.thetaExplicit = (cfg.link_cost_set[link] & HIERAGG_COST_SET_THETA) != 0;
    }
    hier::CalibrationPolicy& net = policy_[hier::kLinkNetwork];
    net.exchangeExplicit = cfg.network_exchange_set && cfg.network_exchange_us >= 0;
    net.offloadAlphaExplicit = (cfg.ofi_cost_set & HIERAGG_COST_SET_ALPHA) != 0;
    net.offloadBetaExplicit = (cfg.ofi_cost_set & HIERAGG_COST_SET_BETA) != 0;
    policy_[hier::kLinkNuma].autocalibrate = policy_[hier::kLinkSwitch].autocalibrate = false;
}

int Runtime::init(const hieragg_transport& tr, const hieragg_config& cfg) {
    if (instance_) return 0;
    std::string why;
    // The shim asked hieragg_tag_window first and stays out when it is 0.
    if (TagLayout::forMaxTag(cfg.pml_max_tag > 0 ? cfg.pml_max_tag : INT32_MAX, cfg.tag_top, why).window() == 0)
        return HIERAGG_ERR_UNSUPPORTED;
    instance_ = new Runtime(tr, cfg);
    return 0;
}

void Runtime::fini() {
    delete instance_;
    instance_ = nullptr;
}

void Runtime::registerComm(void* handle, hieragg_comm* c) {
    std::lock_guard<std::mutex> lock(commsMutex_);
    comms_[handle] = c;
}

std::vector<hieragg_comm*> Runtime::registeredComms() {
    std::lock_guard<std::mutex> lock(commsMutex_);
    std::vector<hieragg_comm*> all;
    for (const auto& e : comms_) all.push_back(e.second);
    return all;
}

void Runtime::unregisterComm(void* handle, hieragg_comm* c) {
    std::lock_guard<std::mutex> lock(commsMutex_);
    auto it = comms_.find(handle);
    if (it != comms_.end() && it->second == c) comms_.erase(it);
}

std::unique_ptr<Task> Runtime::takeTask(std::shared_ptr<const Schedule> schedule, Transport& tr) {
    std::unique_ptr<Task> task;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!spare_.empty()) {
            task = std::move(spare_.back());
            spare_.pop_back();
        }
    }
    if (!task) return std::make_unique<Task>(std::move(schedule), tr, TaskBindings{});
    task->reset(std::move(schedule), tr);
    return task;
}

void Runtime::recycleLocked(std::unique_ptr<Task>& task) {
    task->retire();
    if (spare_.size() < kSpareTasks && task->retainedBytes() <= kSpareTaskBytes) spare_.push_back(std::move(task));
    task.reset();
}

void Runtime::track(std::unique_ptr<Task> task, hieragg_complete_fn done, void* ctx) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!task->done()) {
        active_.push_back({std::move(task), done, ctx});
        noteWorkLocked();
        return;
    }
    const int status = task->status();
    recycleLocked(task);
    lock.unlock();  // the callback may start another call
    done(ctx, status);
}

void Runtime::forget(void* ctx) {
    std::vector<Active> dropped;  // destroyed unlocked: abandoning requests may call into the PML
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (size_t i = 0; i < active_.size();) {
            if (active_[i].ctx != ctx) {
                ++i;
                continue;
            }
            dropped.push_back(std::move(active_[i]));
            active_.erase(active_.begin() + static_cast<ptrdiff_t>(i));
        }
        noteWorkLocked();
    }
}

void Runtime::addPoller(Transport* t) {
    std::lock_guard<std::mutex> lock(mutex_);
    pollers_.push_back(t);
    noteWorkLocked();
}

void Runtime::removePoller(Transport* t) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < pollers_.size(); ++i)
        if (pollers_[i] == t) {
            pollers_.erase(pollers_.begin() + static_cast<ptrdiff_t>(i));
            break;
        }
    noteWorkLocked();
}

int Runtime::progress() {
    if (busy_.load(std::memory_order_acquire) == 0) return 0;  // nothing to progress: an idle poll
    // The completions of this pass: a few at most in practice, kept on the stack.
    constexpr size_t kInline = 8;
    Finished inlineDone[kInline];
    size_t n = 0;
    std::vector<Finished> moreDone;
    {
        std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
        if (!lock.owns_lock()) return 0;  // another thread is progressing every task
        // opal_progress can be re-entered from a completion callback; one level is enough.
        if (inProgress_ || (active_.empty() && pollers_.empty())) return 0;
        inProgress_ = true;
        for (Transport* t : pollers_) t->pollBackground();
        // One pass, compacting as it goes (start order kept): a completion costs O(1),
        // not an erase from the middle of the list.
        size_t kept = 0;
        for (size_t i = 0; i < active_.size(); ++i) {
            Active& a = active_[i];
            if (!a.task->progress()) {
                if (kept != i) active_[kept] = std::move(a);
                ++kept;
                continue;
            }
            const Finished f{a.done, a.ctx, a.task->status()};
            if (n < kInline)
                inlineDone[n] = f;
            else
                moreDone.push_back(f);
            ++n;
            recycleLocked(a.task);
        }
        active_.resize(kept);
        noteWorkLocked();
        inProgress_ = false;
    }
    // Completion callbacks run unlocked: they may start new collectives.
    for (size_t i = 0; i < n && i < kInline; ++i) inlineDone[i].done(inlineDone[i].ctx, inlineDone[i].status);
    for (const Finished& f : moreDone) f.done(f.ctx, f.status);
    return static_cast<int>(n);
}

}  // namespace hieragg
