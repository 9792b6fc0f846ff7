// The C ABI (include/hieragg/abi.h) over the C++ core.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>

#include "CommState.hpp"
#include "Runtime.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/RulesFile.hpp"
#include "hieragg/hier/Selection.hpp"

using namespace hieragg;

namespace {

bool cacheable(hieragg_coll_kind k) {
    switch (k) {
    case HIERAGG_ALLGATHERV: case HIERAGG_ALLTOALLV: case HIERAGG_ALLTOALLW: case HIERAGG_GATHERV:
    case HIERAGG_SCATTERV: case HIERAGG_REDUCE_SCATTER: case HIERAGG_NEIGHBOR_ALLGATHER:
    case HIERAGG_NEIGHBOR_ALLGATHERV: case HIERAGG_NEIGHBOR_ALLTOALL: case HIERAGG_NEIGHBOR_ALLTOALLV:
    case HIERAGG_NEIGHBOR_ALLTOALLW:
        return false;
    default:
        return true;
    }
}

// Everything a cached schedule depends on: kind, root, counts, layouts, op kind,
// in-place and the algorithm override. Buffers and handles are bound per call.
std::string cacheKey(const CollCall& c) {
    struct Key {
        int kind, root, inPlace, commutative, algorithm;
        size_t scount, rcount, segment;
        hieragg_dtype_info s, r;
        int sbufNull, rbufNull;
    } k;
    std::memset(&k, 0, sizeof k);
    k.kind = c.args.kind;
    k.root = c.args.root;
    k.inPlace = c.args.in_place;
    k.commutative = c.args.op_commutative;
    k.algorithm = c.algorithm;
    k.scount = c.args.scount;
    k.rcount = c.args.rcount;
    k.segment = c.segmentBytes;
    k.s = c.stype;
    k.r = c.rtype;
    k.sbufNull = c.args.sbuf == nullptr;
    k.rbufNull = c.args.rbuf == nullptr;
    return std::string(reinterpret_cast<const char*>(&k), sizeof k);
}

constexpr size_t kCacheLimit = 128;

// What a Plan depends on besides the communicator: the collective, the size class of its
// message, the op's commutativity and the override; only what every rank of the call
// shares (not in-place, which MPI lets the root alone set), so every rank picks the same
// plan. Roots and exact counts of a class share it (choosePlan ignores the root).
std::string planKey(const CollCall& c, const hier::RuleCandidate* rule) {
    struct Key {
        int kind, sizeClass, commutative, algorithm;
        const void* rule;
    } k;
    std::memset(&k, 0, sizeof k);
    k = {c.args.kind, hier::sizeClass(hier::modelBytes(c)), c.args.op_commutative, c.algorithm, rule};
    return std::string(reinterpret_cast<const char*>(&k), sizeof k);
}

// SPEC 3.4: the rules file (coll_hieragg_rules_file) decides where it is valid. Its
// determinations are evaluated once per communicator, after the decomposition; a call
// only looks its size class up. An explicit coll_hieragg_<coll>_algorithm wins over it.
// Problems with the file are reported once, by world rank 0, and the cost model decides.
const hier::RuleCandidate* ruleFor(CollCall& call, hieragg_comm& c, Runtime& rt) {
    if (!c.rulesEvaluated) {
        c.rulesEvaluated = true;
        const std::string file = "coll:hieragg: WARNING: rules file " + rt.rulesPath() + ": ";
        if (!rt.rules()) {
            if (c.worldRank == 0 && !rt.rulesProblem().empty())
                rt.warnOnce(file + rt.rulesProblem() + "; the cost model decides instead");
        } else if (!c.inter) {
            const int subspaces = c.hierarchy && !c.hierarchy->isTrivial() ? c.hierarchy->groupCount(0) : 1;
            std::vector<std::string> outOfRange;
            c.determinations = std::make_unique<hier::Determinations>(rt.rules(), c.size, subspaces, &outOfRange);
            // A single rank has nothing to select: no warning for MPI_COMM_SELF and the like.
            for (const std::string& o : outOfRange)
                if (c.worldRank == 0 && c.size > 1)
                    rt.warnOnce(file + o + "; the cost model decides for other communicators");
        }
    }
    if (!c.determinations || call.algorithm != 0) return nullptr;
    const hier::RuleCandidate* rule = c.determinations->ruleFor(call);
    if (rule) hier::applyRule(call, *rule);
    return rule;
}

// A forced algorithm whose needs fail is refused once (world rank 0 speaks for the job,
// as for the decomposition's warnings) and the model's choice runs.
void refuseUnfit(CollCall& call, const hieragg_comm& c, Runtime& rt) {
    if (call.algorithm == 0) return;
    std::string why;
    if (hier::forcedAlgorithm(call, &why)) return;
    const hier::AlgorithmInfo* a = hier::algorithmByValue(call.args.kind, call.algorithm);
    if (c.worldRank == 0 && a)
        rt.warnOnce(std::string("coll_hieragg_") + hieragg_coll_name(call.args.kind) + "_algorithm=" + a->name +
                    " refused: it " + why + "; the cost model's choice runs instead");
    call.algorithm = 0;
}

// MPI_T: each registry algorithm that serves this call counts it once.
void countServed(const CollCall& call, const Schedule& sched, CommCounters& counters) {
    const std::vector<hier::AlgorithmInfo>& rows = hier::allAlgorithms();
    std::vector<const hier::AlgorithmInfo*> used;
    if (call.plan) {
        // A forced "flat" row serves through the tree it runs over the whole communicator: both count.
        const hier::AlgorithmInfo* forced = hier::algorithmByValue(call.args.kind, call.algorithm);
        if (forced && forced->emitter == hier::Emitter::FlatComposition && call.plan->mode == hier::Plan::Mode::Flat)
            used.push_back(forced);
        for (const hier::StageChoice& s : call.plan->stages)
            if (s.algo && std::find(used.begin(), used.end(), s.algo) == used.end()) used.push_back(s.algo);
    } else if (const hier::AlgorithmInfo* a = hier::algorithmByValue(call.args.kind, call.algorithm)) {
        used.push_back(a);
    } else {
        // Not model-driven and not forced: the recipe names what it ran ("ring", "pairwise(...)").
        const std::string& name = sched.algorithm;
        if (const hier::AlgorithmInfo* a =
                hier::algorithmByName(call.args.kind, name.substr(0, name.find_first_of("(+: "))))
            used.push_back(a);
    }
    for (const hier::AlgorithmInfo* a : used) counters.served(static_cast<size_t>(a - rows.data()));
}

}  // namespace

extern "C" {

int hieragg_core_init(const hieragg_transport* transport, const hieragg_config* config) {
    try {
        return Runtime::init(*transport, *config);
    } catch (...) {
        return HIERAGG_ERR_NO_MEM;
    }
}

void hieragg_core_fini(void) { Runtime::fini(); }

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
    if (Runtime* rt = Runtime::instance()) rt->registerComm(comm, c);
    return c;
}

void hieragg_comm_destroy(hieragg_comm* comm) {
    if (!comm) return;
    if (Runtime* rt = Runtime::instance()) rt->unregisterComm(comm->comm, comm);
    delete comm;
}

int hieragg_start(hieragg_comm* c, const hieragg_coll_args* args, hieragg_complete_fn done, void* ctx) {
    Runtime* rt = Runtime::instance();
    if (!rt) return HIERAGG_ERR_INTERNAL;
    try {
        if (int rc = ensureDecomposition(*c)) return rc;
        if (!c->countersLevelled) {
            c->counters->setHierarchy(c->hierarchy.get(), c->rank);
            c->countersLevelled = true;
        }
        CollCall call;
        call.args = *args;
        call.rank = c->rank;
        call.size = c->size;
        call.inter = c->inter;
        call.remoteSize = c->remoteSize;
        call.hierarchy = c->hierarchy.get();
        call.segmentBytes = rt->config().segment_size ? rt->config().segment_size : 64 * 1024;
        call.algorithm = rt->config().algorithm[args->kind];
        describeTypes(call, rt->transport());
        refuseUnfit(call, *c, *rt);
        call.costs = &rt->costs();
        call.stageLinks = c->stageLinks.empty() ? nullptr : &c->stageLinks;
        const bool overridden = call.algorithm != 0;
        const hier::RuleCandidate* rule = ruleFor(call, *c, *rt);
        bool newPlan = false;
        if (hier::modelDriven(args->kind)) {
            const std::string pk = planKey(call, rule);
            auto it = c->plans.find(pk);
            if (it == c->plans.end()) {
                if (c->plans.size() >= kCacheLimit) c->plans.clear();
                hier::Plan plan = hier::choosePlan(call, rt->costs());
                if (rule) hier::applyRuleTunables(plan, *rule, "rules file");
                it = c->plans.emplace(pk, std::make_shared<const hier::Plan>(std::move(plan))).first;
                newPlan = true;
            }
            call.plan = it->second;
        }

        std::shared_ptr<const Schedule> sched;
        std::string key;
        if (cacheable(args->kind)) {
            key = cacheKey(call);
            auto it = c->cache.find(key);
            if (it != c->cache.end()) sched = it->second;
        }
        if (!sched) {
            sched = std::make_shared<const Schedule>(recipes::buildSchedule(call));
            if (sched->channels > kMaxChannels) return HIERAGG_ERR_INTERNAL;
            if (c->rank == 0 || c->inter) {
                // Once per communicator and signature class: the plan, stage by stage.
                std::string msg = std::string("hieragg: ") + hieragg_coll_name(args->kind) + " on " +
                                  std::to_string(c->size) + " ranks: " + sched->algorithm;
                // Where the choice came from (coll_hieragg_verbose=2).
                msg += rule ? " {from rules file " + rt->rulesPath() + ": " + rule->label() + "}"
                       : overridden ? std::string(" {from coll_hieragg_") + hieragg_coll_name(args->kind) + "_algorithm}"
                       : hier::modelDriven(args->kind) ? std::string(" {from the cost model}")
                                                        : std::string(" {built-in choice}");
                if (newPlan) {
                    char pred[64];
                    std::snprintf(pred, sizeof pred, "%.2f", call.plan->predUs);
                    msg += " [" + std::to_string(hier::modelBytes(call)) + " B, pred=" + pred + " us]\n" +
                           call.plan->describe();
                }
                if (newPlan || !hier::modelDriven(args->kind)) rt->verbose(2, msg);
            }
            if (!key.empty()) {
                if (c->cache.size() >= kCacheLimit) c->cache.clear();
                c->cache.emplace(key, sched);
            }
        }
        const uint32_t seq = c->seq++;
        TaskBindings bindings = bindCall(call, rt->transport(), c->comm, tagBase(seq, false), tagBase(seq, true));
        bindings.observer = c->counters;
        countServed(call, *sched, *c->counters);
        auto task = std::make_unique<Task>(sched, rt->transport(), std::move(bindings));
        if (int rc = task->start()) return rc;
        rt->track(std::move(task), done, ctx);
        return 0;
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    } catch (const std::exception& e) {
        rt->warn(std::string("hieragg: ") + hieragg_coll_name(args->kind) + ": " + e.what());
        return HIERAGG_ERR_UNSUPPORTED;
    }
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

const char* hieragg_link_class_name(int link) { return hier::linkClassName(link); }

}  // extern "C"
