// The C ABI (include/hieragg/abi.h) over the C++ core, thin: each export calls the part
// that does the work (CallStart.hpp for calls, TagAllocation.hpp for persistent numbers,
// CommCounters.hpp and the registry for MPI_T).
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <string>

#include "CallPreparation.hpp"
#include "CallStart.hpp"
#include "CommState.hpp"
#include "Runtime.hpp"
#include "TagAllocation.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;

extern "C" {

unsigned hieragg_tag_window(long long max_tag, int tag_top, char* why, size_t why_size) {
    try {
        std::string reason;
        const TagLayout layout = TagLayout::forMaxTag(max_tag, tag_top, reason);
        if (why && why_size > 0) std::snprintf(why, why_size, "%s", reason.c_str());
        return layout.window();
    } catch (...) {
        return 0;
    }
}

int hieragg_core_init(const hieragg_transport* transport, const hieragg_config* config) {
    try {
        return Runtime::init(*transport, *config);
    } catch (...) {
        return HIERAGG_ERR_NO_MEM;
    }
}

void hieragg_core_fini(void) {
    if (Runtime* rt = Runtime::instance()) {
        // A communicator the user freed while its offload transport listened for the
        // leaders' failure notices was never destroyed: Open MPI's PML retains a
        // communicator for each posted receive. Close those transports' fabric objects
        // now, before this library (and libfabric with it) is unloaded, so no provider
        // thread outlives it. The receives stay posted: cancelling them now would destroy
        // the communicator, and with it other components' modules, during coll's close.
        for (hieragg_comm* c : rt->registeredComms())
            if (c->offload.transport) {
                rt->removePoller(c->offload.transport.get());
                c->offload.transport->closeForExit();
            }
    }
    Runtime::fini();
}

hieragg_comm* hieragg_comm_create(void* comm, int rank, int size, int is_inter, int remote_size,
                                  int world_rank) {
    auto* c = new (std::nothrow) hieragg_comm;
    if (!c) return nullptr;
    c->comm = comm;
    c->rank = rank;
    c->size = size;
    c->inter = is_inter != 0;
    c->remoteSize = remote_size;
    c->worldRank = world_rank;
    if (Runtime* rt = Runtime::instance()) {
        c->selection.costs = rt->costs();  // until the network calibration (if any) refines them
        rt->registerComm(comm, c);
    }
    return c;
}

void hieragg_comm_destroy(hieragg_comm* comm) {
    if (!comm) return;
    if (Runtime* rt = Runtime::instance()) {
        rt->unregisterComm(comm->comm, comm);
        if (comm->offload.transport) {
            rt->removePoller(comm->offload.transport.get());
            // Tests count these: a communicator whose state is never destroyed leaks its endpoint.
            rt->verbose(2, "hieragg: offload: endpoint of a communicator of " + std::to_string(comm->size) +
                               " ranks closed (world rank " + std::to_string(comm->worldRank) + ")");
        }
        // A communicator freed while its identity exchange still runs (no collective of it
        // ever completed here): the exchange must not call back into freed state.
        if (comm->decomp.state == DecompositionStage::State::Exchanging) rt->forget(comm);
    }
    // Calls still queued never start now: their requests complete with an error rather
    // than never (MPI_Comm_free with calls outstanding).
    std::deque<PendingStart> queued;
    queued.swap(comm->decomp.pending);
    for (const PendingStart& p : queued) p.done(p.ctx, HIERAGG_ERR_INTERNAL);
    delete comm;
}

void hieragg_comm_freeing(void* comm) {
    Runtime* rt = Runtime::instance();
    if (!rt) return;
    hieragg::Transport* offload = nullptr;
    rt->withComm(comm, [&](hieragg_comm& c) { offload = c.offload.transport.get(); });
    if (!offload) return;
    rt->removePoller(offload);
    offload->stopListening();
}

int hieragg_start(hieragg_comm* c, const hieragg_coll_args* args, hieragg_complete_fn done, void* ctx) {
    return startCall(*c, *args, -1, done, ctx, ArgsLifetime::UntilCompletion);
}

int hieragg_start_nonblocking(hieragg_comm* c, const hieragg_coll_args* args, hieragg_complete_fn done, void* ctx) {
    return startCall(*c, *args, -1, done, ctx, ArgsLifetime::UntilReturn);
}

int hieragg_run(hieragg_comm* c, const hieragg_coll_args* args) { return runBlocking(*c, *args); }

int hieragg_run_barrier(hieragg_comm* c) { return runBarrier(*c); }

int hieragg_persistent_init(hieragg_comm* c, const hieragg_coll_args* args, uint32_t* id) {
    if (!Runtime::instance()) return HIERAGG_ERR_INTERNAL;
    std::lock_guard<CommMutex> lock(c->mutex);
    // Every start runs the init's arguments: the application may free its arrays now.
    const hieragg_coll_args* own = nullptr;
    try {
        OwnedCallArgs& held = c->persistent.args[c->tags.persistentCount];
        held.assign(*args, sideOf(*c));
        own = &held.args();
    } catch (const std::bad_alloc&) {
        c->persistent.args.erase(c->tags.persistentCount);
        return HIERAGG_ERR_NO_MEM;
    }
    *id = c->tags.persistentCount++;
    const int rc = c->inter ? numberInterPersistent(*c, *own, *id) : 0;
    if (rc != 0) c->persistent.args.erase(*id);  // the shim frees the request without hieragg_persistent_free
    return rc;
}

void hieragg_persistent_free(hieragg_comm* c, uint32_t id) {
    std::lock_guard<CommMutex> lock(c->mutex);
    c->tags.persistentTags.erase(id);
    c->persistent.args.erase(id);
}

int hieragg_start_persistent(hieragg_comm* c, const hieragg_coll_args* args, uint32_t id,
                             hieragg_complete_fn done, void* ctx) {
    std::lock_guard<CommMutex> lock(c->mutex);
    // The init's copy lives until hieragg_persistent_free, which comes after the last
    // start completed: no copy per start.
    return startCall(*c, c->persistent.argsOf(id, *args), id, done, ctx, ArgsLifetime::UntilCompletion);
}

int hieragg_progress(void) {
    Runtime* rt = Runtime::instance();
    return rt ? rt->progress() : 0;
}

const char* hieragg_coll_name(hieragg_coll_kind kind) { return hier::collectiveName(kind); }

const char* hieragg_algorithm_names(hieragg_coll_kind kind) {
    return hier::algorithmNames(kind);
}

void hieragg_read_counters(void* comm, hieragg_comm_counters* out) {
    std::memset(out, 0, sizeof *out);
    if (Runtime* rt = Runtime::instance()) rt->withComm(comm, [&](hieragg_comm& c) { c.counters->read(*out); });
}

void hieragg_read_link_cost(void* comm, int link, double out[HIERAGG_LINK_COST_VALUES]) {
    for (int i = 0; i < HIERAGG_LINK_COST_VALUES; ++i) out[i] = 0;
    Runtime* rt = Runtime::instance();
    if (!rt || link < 0 || link >= hier::kLinkClassCount) return;
    auto fill = [&](const hier::LinkCost& l, bool measured) {
        out[0] = l.alpha_us;
        out[1] = l.beta_us_per_byte * 1000.0;
        out[2] = hier::exchangeRoundUs(l);
        out[3] = l.theta_us;
        out[4] = hier::burstUs(l);
        out[5] = measured ? 1.0 : 0.0;
    };
    fill(rt->costs().link[link], false);
    rt->withComm(comm, [&](hieragg_comm& c) {
        std::lock_guard<CommMutex> lock(c.mutex);  // the calibration may be writing it
        fill(c.selection.costs.link[link], c.selection.measured[static_cast<size_t>(link)]);
    });
}

// The measured network parameters beyond alpha/beta (MPI_T pvar coll_hieragg_network_calibration).
void hieragg_read_network_calibration(void* comm, double out[HIERAGG_NETWORK_CALIBRATION_VALUES]) {
    for (int i = 0; i < HIERAGG_NETWORK_CALIBRATION_VALUES; ++i) out[i] = 0;
    Runtime* rt = Runtime::instance();
    if (!rt) return;
    auto fill = [&](const hier::CostParams& p, const hier::MeasuredLink& m) {
        const hier::LinkCost& net = p.link[hier::kLinkNetwork];
        out[0] = m.valid ? m.eager_beta_ns_per_byte : net.beta_us_per_byte * 1000.0;
        out[1] = net.eager_bytes;
        out[2] = net.rendezvous_us;
        out[3] = hier::burstUs(net);
        out[4] = p.closeFraction;
        out[5] = m.valid ? 1.0 : 0.0;
    };
    fill(rt->costs(), hier::MeasuredLink{});
    rt->withComm(comm, [&](hieragg_comm& c) {
        std::lock_guard<CommMutex> lock(c.mutex);  // the calibration may be writing it
        fill(c.selection.costs, c.selection.measured[hier::kLinkNetwork] ? rt->measuredLink(hier::kLinkNetwork)
                                                                         : hier::MeasuredLink{});
    });
}

int hieragg_algorithm_count(hieragg_coll_kind kind) {
    return static_cast<int>(hier::algorithmsOf(kind).size());
}

int hieragg_read_algorithm_calls(void* comm, hieragg_coll_kind kind, uint64_t* out, int max) {
    const std::vector<const hier::AlgorithmInfo*>& algos = hier::algorithmsOf(kind);
    const int n = static_cast<int>(algos.size());
    for (int i = 0; i < n && i < max; ++i) out[i] = 0;
    if (Runtime* rt = Runtime::instance())
        rt->withComm(comm, [&](hieragg_comm& c) {
            for (int i = 0; i < n && i < max; ++i)
                out[i] = c.counters->algorithmCalls(static_cast<size_t>(algos[i] - hier::allAlgorithms().data()));
        });
    return n;
}

hieragg_link_cost hieragg_default_link_cost(int link) { return hier::defaultLinkCost(link); }

hieragg_link_cost hieragg_default_offload_cost(void) { return hier::defaultOffloadCost(); }

const char* hieragg_link_class_name(int link) { return hier::linkClassName(link); }

}  // extern "C"
