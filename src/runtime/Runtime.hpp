// Process-wide state of the core: the transport, the configuration and every
// collective in flight, progressed from Open MPI's progress engine.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "PmlTransport.hpp"
#include "TagLayout.hpp"
#include "hieragg/Task.hpp"
#include "hieragg/abi.h"
#include "hieragg/hier/CostParams.hpp"
#include "hieragg/hier/LinkCalibration.hpp"
#include "hieragg/hier/RulesFile.hpp"

struct hieragg_comm;

namespace hieragg {

// A finished task keeping more storage than this is freed rather than kept for reuse.
constexpr size_t kSpareTaskBytes = 64 * 1024;

class Runtime {
public:
    // Inline: every call's entry asks (a load, where a call into Runtime.cpp cost a frame).
    static Runtime* instance() { return instance_; }
    static int init(const hieragg_transport& tr, const hieragg_config& cfg);
    static void fini();

    PmlTransport& transport() { return transport_; }
    const hieragg_config& config() const { return config_; }
    // MPI_THREAD_MULTIPLE (hieragg_config::thread_multiple): starts may come from several
    // threads at once.
    bool threadMultiple() const { return config_.thread_multiple != 0; }
    // Where this process's tags sit, sized from the PML's MPI_TAG_UB (TagLayout.hpp).
    const TagLayout& tags() const { return tags_; }
    const std::string& split() const { return split_; }
    // The selection's cost model parameters (coll_hieragg_cost_*, defaults filled in).
    const hier::CostParams& costs() const { return costs_; }
    // The rules file (coll_hieragg_rules_file) when it loaded, else null; rulesProblem()
    // then says why ("" when no file was given).
    const std::shared_ptr<const hier::RulesFile>& rules() const { return rules_; }
    const std::string& rulesPath() const { return rulesPath_; }
    const std::string& rulesProblem() const { return rulesProblem_; }
    // Automatic calibration of the node and network links (LinkCalibrationStage.hpp), per
    // link class: what the user decided, and the value this process last agreed on with a
    // communicator (carried in its identity record, so later communicators agree without
    // measuring again). Other classes: never measured (policy off, value invalid).
    const hier::CalibrationPolicy& calibrationPolicy(int link) const { return policy_[classIndex(link)]; }
    hier::MeasuredLink measuredLink(int link) {
        std::lock_guard<std::mutex> lock(mutex_);
        return measured_[classIndex(link)];
    }
    void setMeasuredLink(int link, const hier::MeasuredLink& m) {
        std::lock_guard<std::mutex> lock(mutex_);
        measured_[classIndex(link)] = m;
    }

    // Communicators by the shim's handle, for the MPI_T readers (which get the handle).
    void registerComm(void* handle, hieragg_comm* c);
    void unregisterComm(void* handle, hieragg_comm* c);
    // The communicators registered now (a copy: the caller may destroy some of them).
    std::vector<hieragg_comm*> registeredComms();
    // Runs f(c) under the registry's lock if `handle` is known (c stays alive meanwhile).
    template <class F> void withComm(void* handle, F f) {
        std::lock_guard<std::mutex> lock(commsMutex_);
        auto it = comms_.find(handle);
        if (it != comms_.end()) f(*it->second);
    }

    // A task for a call of `schedule` on `tr`: a finished one kept for reuse (its storage
    // intact, Task::reset) or a new one. The caller fills task->bindings() and starts it.
    std::unique_ptr<Task> takeTask(std::shared_ptr<const Schedule> schedule, Transport& tr);
    // Takes a started task; completes it now if it is already done.
    void track(std::unique_ptr<Task> task, hieragg_complete_fn done, void* ctx);
    int progress();
    // Transports whose poll() must run on every progress call, even with no collective in
    // flight (an offload transport listens for its leaders' failure notices; docs/offload.md).
    void addPoller(Transport* t);
    void removePoller(Transport* t);
    // Drops (abandons) the tasks whose completion context is ctx, without calling back.
    void forget(void* ctx);
    void warn(const std::string& msg) const { transport_.output(0, msg); }
    // Each distinct warning once per process (communicators repeat the same problem).
    void warnOnce(const std::string& msg) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (warned_.insert(msg).second) warn(msg);
    }
    void verbose(int level, const std::string& msg) const {
        if (config_.verbose >= level) transport_.output(level, msg);
    }
    // Each distinct message once per process, at `level`.
    void verboseOnce(int level, const std::string& msg) {
        if (config_.verbose < level) return;
        std::lock_guard<std::mutex> lock(mutex_);
        if (warned_.insert(msg).second) transport_.output(level, msg);
    }

private:
    static Runtime* instance_;
    Runtime(const hieragg_transport& tr, const hieragg_config& cfg);
    struct Active {
        std::unique_ptr<Task> task;
        hieragg_complete_fn done;
        void* ctx;
    };
    // A finished task's completion, called back outside the lock.
    struct Finished {
        hieragg_complete_fn done;
        void* ctx;
        int status;
    };
    // Keeps a finished task for reuse if the pool has room and it is small; else frees it.
    // mutex_ held.
    void recycleLocked(std::unique_ptr<Task>& task);
    // active_ and pollers_ changed (mutex_ held): progress() reads busy_ without the lock.
    void noteWorkLocked() { busy_.store(active_.size() + pollers_.size(), std::memory_order_release); }
    PmlTransport transport_;
    hieragg_config config_;
    TagLayout tags_;
    std::string split_;
    std::string ofiProvider_, ofiInject_;
    std::vector<Transport*> pollers_;
    hier::CostParams costs_;
    std::shared_ptr<const hier::RulesFile> rules_;
    std::string rulesPath_, rulesProblem_;
    static int classIndex(int link) { return link >= 0 && link < hier::kLinkClassCount ? link : hier::kLinkNuma; }
    hier::CalibrationPolicy policy_[hier::kLinkClassCount];
    hier::MeasuredLink measured_[hier::kLinkClassCount];
    std::vector<Active> active_;
    // Finished tasks kept for reuse: at most kSpareTasks, none keeping more than
    // kSpareTaskBytes (Runtime.cpp), so the pool stays bounded whatever ran before.
    std::vector<std::unique_ptr<Task>> spare_;
    bool inProgress_ = false;
    // Tasks and pollers there are (noteWorkLocked): an idle progress poll, the one every
    // blocking wait of any component spins on, returns after reading it, without the lock.
    std::atomic<size_t> busy_{0};
    // MPI_THREAD_MULTIPLE: threads may start collectives on different communicators
    // and drive opal_progress at once; one of them progresses, the others move on.
    std::mutex mutex_;
    std::set<std::string> warned_;
    std::mutex commsMutex_;
    std::map<void*, hieragg_comm*> comms_;
};

}  // namespace hieragg
