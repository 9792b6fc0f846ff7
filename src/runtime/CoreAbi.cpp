// The C ABI (include/hieragg/abi.h) over the C++ core.
#include <algorithm>
#include <deque>
#include <cstdio>
#include <cstring>
#include <new>
#include <memory>
#include <optional>
#include <stdexcept>

#include "CallCache.hpp"
#include "CallCacheKeys.hpp"
#include "CallVectors.hpp"
#include "CommState.hpp"
#include "OwnedCallArgs.hpp"
#include "ReproducibleCall.hpp"
#include "Runtime.hpp"
#include "TwoStageCall.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/RulesFile.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/TempLimit.hpp"
#include "hieragg/hier/TwoStage.hpp"

using namespace hieragg;

namespace {

// The plan line of a call whose offloaded leader stage runs over the PML since the leaders
// agreed the fabric failed: the stage keeps its name (the schedule is the same) and says
// where it really runs, in the summary and in the stage's own line.
void markOffloadFellBack(std::string& msg) {
    const std::string note = "[fell back: over point-to-point]";
    const size_t stage = msg.find("leaders:ofi-");
    if (stage == std::string::npos) return;
    const size_t end = msg.find_first_of("+ \n", stage);
    msg.insert(end == std::string::npos ? msg.size() : end, note);
    const size_t line = msg.find("\n  leaders (");
    if (line == std::string::npos) return;
    const size_t eol = msg.find('\n', line + 1);
    msg.insert(eol == std::string::npos ? msg.size() : eol,
               " " + note.substr(0, note.size() - 1) + " among the leaders after a fabric failure]");
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

// MPI_T: each registry algorithm that serves this call counts it once. A call whose
// signature is the last call's (c.callIsLast, set by scheduleFor) counts the rows found
// for that signature without looking them up again.
void countLastServed(hieragg_comm& c) {
    for (size_t i = 0; i < c.lastServedCount; ++i) c.counters->served(c.lastServed[i]);
}

void countServed(const CollCall& call, const Schedule& sched, hieragg_comm& c) {
    const std::vector<hier::AlgorithmInfo>& rows = hier::allAlgorithms();
    CommCounters& counters = *c.counters;
    if (c.callIsLast && c.lastServedValid) {
        countLastServed(c);
        return;
    }
    // A handful of rows at most (one per stage): no allocation on every call.
    struct Used {
        const hier::AlgorithmInfo* row[hieragg_comm::kMaxServed];
        size_t n = 0;
        const hier::AlgorithmInfo** begin() { return row; }
        const hier::AlgorithmInfo** end() { return row + n; }
        void push_back(const hier::AlgorithmInfo* a) {
            if (n < hieragg_comm::kMaxServed) row[n++] = a;
        }
    } used;
    if (call.plan) {
        // A forced "flat" row serves through the tree it runs over the whole communicator: both count.
        const hier::AlgorithmInfo* forced = hier::algorithmByValue(call.args.kind, call.algorithm);
        if (forced && forced->pricing == hier::Pricing::FlatMarker && call.plan->mode == hier::Plan::Mode::Flat)
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
    if (c.callIsLast) {
        for (size_t i = 0; i < used.n; ++i) c.lastServed[i] = static_cast<size_t>(used.row[i] - rows.data());
        c.lastServedCount = used.n;
        c.lastServedValid = true;
    }
}

// A two-stage call's stage (coll_hier TwoStage.hpp): 0 = a call of one stage.
struct VarStage {
    int stage = 0;                     // CollCall::varStage
    const uint64_t* learned = nullptr; // stage 2: what stage 1 delivered
};

// The fields of `call` that come from the communicator and the settings alone (every
// call fills them, the last-call shortcut too).
void fillFromCommunicator(const hieragg_comm& c, const hieragg_coll_args& args, const Runtime& rt, CollCall& call) {
    call.args = args;
    call.rank = c.rank;
    call.size = c.size;
    call.inter = c.inter;
    call.remoteSize = c.remoteSize;
    call.hierarchy = c.hierarchy.get();
    call.segmentBytes = rt.config().segment_size ? rt.config().segment_size : 64 * 1024;
    // coll_hieragg_reproducible=order|strong: no offloaded float/double SUM/PROD unless the
    // provider fixes the combination order (AlgorithmRegistry.cpp).
    call.fixedOrderRequired = rt.config().reproducible != HIERAGG_REPRODUCIBLE_NONE;
    call.costs = &c.costs;
    // Before the refusal check: type2 needs the stages' link classes (switch levels).
    call.stageLinks = c.stageLinks.empty() ? nullptr : &c.stageLinks;
    call.switchEntries = rt.config().switch_entries;
    call.switchDegree = rt.config().switch_degree;
    call.maxTempBytes = rt.config().max_temp_bytes;
}

// Fills `call` from `args` on `c`: layouts, settings, the forced algorithm (refused when
// its needs fail) and the rules file's choice; returns that rule (null: none).
const hier::RuleCandidate* prepareCall(hieragg_comm& c, const hieragg_coll_args& args, CollCall& call,
                                       bool offloadAllowed) {
    Runtime* rt = Runtime::instance();
    fillFromCommunicator(c, args, *rt, call);
    call.algorithm = rt->config().algorithm[args.kind];
    describeTypes(call, rt->transport());
    if (c.offloadOn && offloadAllowed) {
        // Every rank of the communicator knows what the leaders' group can run.
        call.offload = &c.offloadCaps;
        if (args.kind == HIERAGG_ALLREDUCE)
            rt->transport().numericKind(args.rtype, args.op, call.elemKind, call.opKind);
    }
    refuseUnfit(call, c, *rt);
    // Every start (direct, queued behind the identity exchange, persistent, a strong
    // chain's link) comes through here, so the rules file decides for all of them.
    return ruleFor(call, c, *rt);
}

// Everything of the arguments the schedule and plan keys read besides the per-rank vectors,
// field by field (buffers only by whether they are null: they are bound per call).
bool sameRawCall(const hieragg_coll_args& a, const hieragg_coll_args& b) {
    return a.kind == b.kind && a.root == b.root && a.in_place == b.in_place && a.scount == b.scount &&
           a.rcount == b.rcount && a.stype == b.stype && a.rtype == b.rtype && a.op == b.op &&
           a.op_commutative == b.op_commutative && a.float_sum == b.float_sum &&
           (a.sbuf == nullptr) == (b.sbuf == nullptr) && (a.rbuf == nullptr) == (b.rbuf == nullptr) &&
           a.topology == b.topology && a.indegree == b.indegree && a.outdegree == b.outdegree;
}

// After a call whose signature became (or was) the last one: keeps its raw arguments for
// scheduleFor's first check when nothing but them can change its signature. Only on
// predefined datatypes: a derived type's handle may be freed and reused by another layout.
// The per-rank vectors are compared by value against the last signature's (lastVectors).
void rememberRaw(hieragg_comm& c, const hieragg_coll_args& args, const CollCall& call, VarStage stage) {
    const bool predefined = (!args.stype || call.stype.predefined) && (!args.rtype || call.rtype.predefined);
    if (stage.stage != 0 || c.inter || c.offloadOn || !predefined || !hier::rawRepeatable(args.kind)) return;
    c.lastRaw = args;
    c.lastRawStype = call.stype;
    c.lastRawRtype = call.rtype;
    c.lastRawAlgorithm = call.algorithm;
    c.lastRawValid = true;
}

// The last call again, with the same raw arguments (rememberRaw kept them). Its per-rank
// vectors, for a kind that has any, are still to be compared by value (lastVectors).
bool repeatsLastRaw(const hieragg_comm& c, const hieragg_coll_args& args) {
    return c.lastRawValid && sameRawCall(args, c.lastRaw);
}

// Builds (or finds in the cache) the schedule of `args` on `c`; fills `call`. Returns an
// error code (and no schedule) when none can run. Throws what building throws.
int scheduleFor(hieragg_comm& c, const hieragg_coll_args& args, CollCall& call,
                std::shared_ptr<const Schedule>& sched, bool offloadAllowed = true, VarStage stage = {}) {
    Runtime* rt = Runtime::instance();
    // The last call again, with the same raw arguments on predefined datatypes (an 8-byte
    // loop): its signature is the last one, so the fields that building, the keys and the
    // launch read are the last call's. Offload and intercommunicators take the full path.
    if (stage.stage == 0 && repeatsLastRaw(c, args)) {
        fillFromCommunicator(c, args, *rt, call);
        // Its per-rank vectors by value: the application may rewrite the same arrays.
        if (sameVectors(call, *c.lastVectors)) {
            call.stype = c.lastRawStype;
            call.rtype = c.lastRawRtype;
            call.algorithm = c.lastRawAlgorithm;
            call.plan = c.lastPlan;
            sched = c.lastSchedule;
            c.callIsLast = true;
            return 0;
        }
    }
    c.lastRawValid = false;
    const hier::RuleCandidate* rule = prepareCall(c, args, call, offloadAllowed);
    const bool overridden = call.algorithm != 0;
    call.varStage = stage.stage;
    call.learnedBytes = stage.learned;
    // After an agreed fabric failure this leader's transport runs the offloaded stages over
    // the PML (docs/offload.md): rank 0 (leader 0) keys its plans and schedules apart then,
    // so the first call of each kind after it rebuilds the same plan and says so. Only a
    // key of this rank changes: the plan does not, so nobody else needs to know.
    const bool offloadFellBack = c.offloadOn && c.offload && c.offload->fellBack();
    // Back-to-back calls of one signature (a loop of 8-byte bcasts) take the last call's
    // plan and schedule without building key strings or looking up either cache: at 8 B
    // the call's own cost is what limits a stream of calls (docs/performance.md).
    // Per-rank vectors enter the key as a digest; the last call's and each cached
    // schedule's vectors are compared by value (CallVectors.hpp, ScheduleCache.hpp).
    // The signature: the schedule key (with the stage and the fallback mark), then the plan key.
    CallKey sig;
    c.callIsLast = false;
    writeScheduleKey(call, sig);
    sig.add(call.varStage).add(offloadFellBack);
    const size_t scheduleKeyBytes = sig.size();
    if (hier::modelDriven(args.kind)) writePlanKey(call, rule, sig);
    if (c.lastSchedule && sig.equals(c.lastSignature) && sameVectors(call, *c.lastVectors)) {
        call.plan = c.lastPlan;
        sched = c.lastSchedule;
        c.callIsLast = true;
        rememberRaw(c, args, call, stage);
        return 0;
    }
    bool newPlan = false;
    if (hier::modelDriven(args.kind)) {
        const std::string pk = planCacheKey(call, rule) + (offloadFellBack ? "|fell-back" : "");
        std::shared_ptr<const hier::Plan>* found = c.plans.find(pk);
        if (!found) {
            hier::Plan plan = hier::choosePlan(call, c.costs);
            if (rule) hier::applyRuleTunables(plan, *rule, "rules file");
            // A candidate that was not available says why once (e.g. no type II tree fits).
            if (!plan.note.empty() && (c.rank == 0 || c.inter)) rt->verboseOnce(1, plan.note);
            found = &c.plans.insert(pk, std::make_shared<const hier::Plan>(std::move(plan)));
            newPlan = true;
        }
        call.plan = *found;
    }

    const std::string key = sig.prefix(scheduleKeyBytes);
    const CachedSchedule* entry = c.cache.find(key, call);
    if (entry) sched = entry->schedule;
    if (!sched) {
        recipes::TempLimitChoice built = recipes::chooseUnderTempLimit(call, rt->config().max_temp_bytes);
        if (!built.fits && (c.rank == 0 || !recipes::tempNeedIsGlobal(call)))
            // Every rank took the same schedule (TempLimit.hpp); one line says so (where
            // only this rank's need is known, the ranks over the limit say it).
            rt->warnOnce(std::string("hieragg: ") + hieragg_coll_name(args.kind) + ": no schedule fits " +
                         "coll_hieragg_max_temp_bytes=" + std::to_string(rt->config().max_temp_bytes) +
                         "; running the one with the least scratch memory (" + std::to_string(built.worstBytes) +
                         " bytes on the rank that needs most) instead of failing the call");
        sched = std::make_shared<const Schedule>(std::move(built.schedule));
        if (sched->channels > kMaxChannels) return HIERAGG_ERR_INTERNAL;
        if (c.rank == 0 || c.inter) {
            // Once per communicator and signature class: the plan, stage by stage (the
            // schedule that runs may differ from it under coll_hieragg_max_temp_bytes).
            std::string msg = std::string("hieragg: ") + hieragg_coll_name(args.kind) + " on " +
                              std::to_string(c.size) + " ranks: " + sched->algorithm;
            // Where the choice came from (coll_hieragg_verbose=2).
            msg += rule ? " {from rules file " + rt->rulesPath() + ": " + rule->label() + "}"
                   : overridden ? std::string(" {from coll_hieragg_") + hieragg_coll_name(args.kind) + "_algorithm}"
                   : hier::modelDriven(args.kind) ? std::string(" {from the cost model}")
                                                   : std::string(" {built-in choice}");
            if (newPlan) {
                char pred[64];
                std::snprintf(pred, sizeof pred, "%.2f", call.plan->predUs);
                msg += " [" + std::to_string(hier::modelBytes(call)) + " B, pred=" + pred + " us]\n" +
                       call.plan->describe();
            }
            if (offloadFellBack) markOffloadFellBack(msg);
            if (newPlan || !hier::modelDriven(args.kind)) rt->verbose(2, msg);
        }
        entry = &c.cache.insert(key, call, sched);
    }
    c.lastSignature = sig.str();
    c.lastPlan = call.plan;
    c.lastSchedule = sched;
    c.lastVectors = entry->vectors;
    c.lastServedValid = false;  // countServed finds this signature's rows
    c.callIsLast = sig.fits();  // an overflowed key never matches: nothing to remember
    if (c.callIsLast) rememberRaw(c, args, call, stage);
    return 0;
}

// Per-peer tag bases of an intercommunicator's persistent request, taken at its init.
void takePersistentTags(hieragg_comm& c, const Schedule& sched, PersistentTags& tags) {
    if (c.persistPairSeq.empty()) c.persistPairSeq.assign(static_cast<size_t>(c.remoteSize), 0);
    if (c.localPersistPairSeq.empty()) c.localPersistPairSeq.assign(static_cast<size_t>(c.size), 0);
    for (int p : sched.peers) tags.peer.push_back(tagBase(c.persistPairSeq.at(p)++, TagSpace::Persistent, false));
    for (int p : sched.localPeers)
        tags.local.push_back(tagBase(c.localPersistPairSeq.at(p)++, TagSpace::Persistent, true));
}

// The tag bases of the next call on each of the schedule's peers (aligned with s.peers).
void takeCallTags(hieragg_comm& c, const Schedule& s, int* out) {
    if (c.pairSeq.empty()) c.pairSeq.assign(static_cast<size_t>(c.inter ? c.remoteSize : c.size), 0);
    for (size_t i = 0; i < s.peers.size(); ++i) out[i] = tagBase(c.pairSeq.at(s.peers[i])++, TagSpace::Call, false);
}

// Runs the compiled last call for the blocking caller waiting on `w` (CallCache.hpp).
int runCompiled(hieragg_comm& c, const hieragg_coll_args& args, Transport& tr, CompiledCall& f, bool countCall,
                BlockingWait& w) {
    c.callIsLast = true;
    int tags[CompiledCall::kMaxActions];
    takeCallTags(c, *f.schedule(), tags);
    if (countCall) countLastServed(c);
    CompiledCall::Binding b;
    b.sbuf = args.sbuf;
    b.rbuf = args.rbuf;
    b.stype = args.stype;
    b.rtype = args.rtype;
    b.packed = tr.packedType();
    b.op = args.op;
    b.comm = c.comm;
    b.peerTagBase = tags;
    b.observer = c.counters.get();
    return c.callCache.start(f, tr, b, w);
}

bool strongReproducible(const Runtime& rt, const hieragg_comm& c, const hieragg_coll_args& a);

// The compiled fast path's entry (CallCache.hpp), the first thing a blocking call does:
// a repeat of the last call's raw arguments on a communicator whose decomposition is
// ready, with nothing else of it queued or in flight here (the case startCall launches
// without the window's accounting), runs the last schedule compiled into a flat action
// array, inside the caller's wait. It is what launch() would run for it: never a strong
// reduction's chain, and last-raw state exists only for one-stage calls on
// intracommunicators without offload.
// Kinds with per-rank vectors are compared by value in scheduleFor and never come here.
// False (nothing started) for every other call; else *rc is the start's error code.
bool runRepeat(hieragg_comm& c, const hieragg_coll_args& args, BlockingWait& w, int* rc) {
    Runtime* rt = Runtime::instance();
    if (!rt) return false;
    std::lock_guard<std::recursive_mutex> lock(c.mutex);
    // Behind a queued call, or beside nonblocking calls in flight here, the call goes
    // through startCall: it must keep its place in the queue and the window's count.
    if (c.decomp != hieragg_comm::Decomp::Ready || !c.pending.empty() || !c.window.idle() ||
        !c.lastServedValid || !repeatsLastRaw(c, args) ||
        hier::factsOf(args.kind).vectors != hier::kNoVectors || strongReproducible(*rt, c, args))
        return false;
    CompiledCall* f = c.callCache.compiledFor(c.lastSchedule, c.lastRawStype, c.lastRawRtype);
    if (!f) return false;
    *rc = runCompiled(c, args, rt->transport(), *f, true, w);
    return true;
}

// Which tags a Task takes: the next per-pair call numbers, a persistent request's tags
// of its init, or numbers a chain reserved earlier (one per link, on every pair).
struct CallNumbers {
    int64_t persistentId = -1;                        // >= 0: a persistent request
    const std::vector<uint32_t>* reserved = nullptr;  // per peer: first number of a chain
    uint32_t link = 0;                                // this Task's offset in the chain
    bool countCall = true;  // MPI_T: count the algorithms that served (a chain's first link only)
};

// Builds (or finds) the schedule and starts its Task on `tr`. Returns an error code
// without calling `done` when nothing was started.
int launchTask(hieragg_comm& c, const hieragg_coll_args& args, Transport& tr, const CallNumbers& numbers,
               hieragg_complete_fn done, void* ctx, VarStage stage = {}) {
    Runtime* rt = Runtime::instance();
    try {
        // A strong chain's links run on their own transport: never offloaded.
        const bool plainTransport = &tr == &rt->transport();
        CollCall call;
        std::shared_ptr<const Schedule> sched;
        if (int rc = scheduleFor(c, args, call, sched, plainTransport, stage)) return rc;
        Transport* taskTr = &tr;
        size_t fabricSteps = 0;
        if (c.offloadOn && plainTransport) {
            fabricSteps = sched->countKind(StepKind::Collective);
            if (fabricSteps > 0) {
                if (!c.offload) return HIERAGG_ERR_INTERNAL;  // only leaders' schedules hold them
                taskTr = c.offload.get();
            }
        }
        // MPI_T: the decomposition exists here (launches wait for it); the counters learn
        // each peer's level once, then every Task of the communicator counts into them.
        if (!c.countersLevelled) {
            c.counters->setHierarchy(c.hierarchy.get(), c.rank);
            c.countersLevelled = true;
        }
        // A reused task (its vectors keep their storage): the bindings are filled in place.
        const Schedule& s = *sched;
        std::unique_ptr<Task> task;
        if (c.spareTask) {
            task = std::move(c.spareTask);
            task->reset(std::move(sched), *taskTr);
        } else {
            task = rt->takeTask(std::move(sched), *taskTr);
        }
        TaskBindings& bind = task->bindings();
        bindCallInto(call, tr, c.comm, 0, 0, bind);
        if (fabricSteps > 0) {
            bind.fabricSteps = fabricSteps;
            // Tickets are taken in launch order, which is start order and the same on
            // every leader (queued calls launch in start order; docs/offload.md).
            bind.fabricTicket = c.offloadTickets++;
            bind.fabricElem = call.elemKind;
            bind.fabricOp = call.opKind;
        }
        bind.observer = c.counters;
        if (numbers.persistentId >= 0) {
            // Every start of a persistent request uses the tags of its init: starts of one
            // request follow each other on every rank, and MPI's non-overtaking rule keeps
            // the messages of consecutive starts apart.
            const auto id = static_cast<uint32_t>(numbers.persistentId);
            auto it = c.persistentTags.find(id);
            if (it != c.persistentTags.end()) {
                bind.peerTagBase = it->second.peer;
                bind.localPeerTagBase = it->second.local;
            } else {
                bind.tagBase = tagBase(id, TagSpace::Persistent, false);
                bind.localTagBase = tagBase(id, TagSpace::Persistent, true);
            }
        } else if (numbers.reserved) {
            // Chains run on intracommunicators only (no local group).
            if (!s.localPeers.empty()) return HIERAGG_ERR_INTERNAL;
            for (int p : s.peers)
                bind.peerTagBase.push_back(tagBase(numbers.reserved->at(p) + numbers.link, TagSpace::Call, false));
        } else {
            bind.peerTagBase.resize(s.peers.size());
            takeCallTags(c, s, bind.peerTagBase.data());
            if (c.inter && c.localPairSeq.empty()) c.localPairSeq.assign(static_cast<size_t>(c.size), 0);
            for (int p : s.localPeers)
                bind.localPeerTagBase.push_back(tagBase(c.localPairSeq.at(p)++, TagSpace::Call, true));
        }
        // No bind.maxTempBytes: coll_hieragg_max_temp_bytes was applied when the schedule was
        // chosen (chooseUnderTempLimit), and one over it was chosen alike on every rank.
        if (numbers.countCall) countServed(call, s, c);
        if (int rc = task->start()) return rc;
        if (task->done()) {
            // Over already: the next call of this communicator reuses the task at once.
            const int status = task->status();
            task->retire();
            if (task->retainedBytes() <= kSpareTaskBytes) c.spareTask = std::move(task);
            task.reset();
            done(ctx, status);
            return 0;
        }
        rt->track(std::move(task), done, ctx);
        return 0;
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    } catch (const std::exception& e) {
        rt->warn(std::string("hieragg: ") + hieragg_coll_name(args.kind) + ": " + e.what());
        return HIERAGG_ERR_UNSUPPORTED;
    }
}

// The lengths of a call's arrays on `c` (OwnedCallArgs).
CallSide sideOf(const hieragg_comm& c) {
    CallSide s;
    s.rank = c.rank;
    s.size = c.size;
    s.inter = c.inter;
    s.remoteSize = c.remoteSize;
    return s;
}

// coll_hieragg_reproducible=strong: MPI_SUM of doubles/floats runs on accumulators
// (ReproducibleCall converts at entry and rounds once at completion).
bool strongReproducible(const Runtime& rt, const hieragg_comm& c, const hieragg_coll_args& a) {
    return rt.config().reproducible == HIERAGG_REPRODUCIBLE_STRONG && ReproducibleCall::applies(a, c.inter);
}

// Starts a strong reduction's chain of links (ReproducibleCall.hpp). It runs where any
// call is launched (the decomposition exists, start order), so every rank reserves the
// chain's numbers at the same point of its per-pair sequences: `links` consecutive
// numbers on EVERY pair of the communicator, whatever each link's schedule touches.
// That is consistent because strong mode serves intracommunicator reductions only,
// which every rank calls (the count is the same everywhere). Later links start from
// the progress engine with the numbers reserved here, so calls started meanwhile on
// any rank never shift them. A persistent request's links all use its init's tags:
// links follow each other on every rank, as consecutive starts do.
int launchReproducible(hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId,
                       hieragg_complete_fn done, void* ctx, ArgsLifetime lifetime) {
    Runtime& rt = *Runtime::instance();
    void* accType = rt.transport().accumulatorType();
    if (!accType) {  // the shim could not create it: keep the job running
        rt.warnOnce("coll_hieragg_reproducible=strong: no accumulator datatype; reductions keep a fixed order only");
        CallNumbers numbers;
        numbers.persistentId = persistentId;
        return launchTask(c, args, rt.transport(), numbers, done, ctx);
    }
    try {
        const size_t segment = rt.config().segment_size ? rt.config().segment_size : 64 * 1024;
        std::unique_ptr<ReproducibleCall> chain =
            ReproducibleCall::create(OwnedCallArgs::held(args, sideOf(c), lifetime), c.rank, c.size, segment,
                                     rt.transport(), accType, done, ctx);
        if (!chain) return HIERAGG_ERR_NO_MEM;
        std::vector<uint32_t> reserved;
        if (persistentId < 0) {
            if (c.pairSeq.empty()) c.pairSeq.assign(static_cast<size_t>(c.size), 0);
            reserved = c.pairSeq;
            for (uint32_t& n : c.pairSeq) n += static_cast<uint32_t>(chain->links());
        }
        hieragg_comm* comm = &c;
        const int status = chain->run([comm, persistentId, reserved = std::move(reserved)](
                                          const hieragg_coll_args& a, Transport& tr, size_t link,
                                          hieragg_complete_fn linkDone, void* linkCtx) {
            // Later links start from completion callbacks, outside the start's lock.
            std::lock_guard<std::recursive_mutex> lock(comm->mutex);
            CallNumbers numbers;
            numbers.persistentId = persistentId;
            if (persistentId < 0) {
                numbers.reserved = &reserved;
                numbers.link = static_cast<uint32_t>(link);
            }
            numbers.countCall = link == 0;  // one user call, however many links
            return launchTask(*comm, a, tr, numbers, linkDone, linkCtx);
        });
        if (status == 0) chain.release();  // the chain owns itself until it completes the call
        return status;
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    }
}

// A hierarchical gatherv/scatterv/alltoallv/alltoallw (coll_hier TwoStage.hpp): the size
// stage, then the data stage built from it, as two links of a chain whose call numbers
// are reserved here on every pair, as for a strong reduction (launchReproducible): every
// rank of the intracommunicator calls the collective and takes the same decision.
int launchTwoStage(hieragg_comm& c, const CollCall& probe, int64_t persistentId, hieragg_complete_fn done,
                   void* ctx, ArgsLifetime lifetime) {
    try {
        std::unique_ptr<TwoStageCall> chain =
            TwoStageCall::create(OwnedCallArgs::held(probe.args, sideOf(c), lifetime), recipes::sizeStageInput(probe),
                                 recipes::sizeStageLearned(probe), done, ctx);
        if (!chain) return HIERAGG_ERR_NO_MEM;
        std::vector<uint32_t> reserved;
        if (persistentId < 0) {
            if (c.pairSeq.empty()) c.pairSeq.assign(static_cast<size_t>(c.size), 0);
            reserved = c.pairSeq;
            for (uint32_t& n : c.pairSeq) n += 2;
        }
        hieragg_comm* comm = &c;
        const int status = chain->run([comm, persistentId, reserved = std::move(reserved)](
                                          const hieragg_coll_args& a, int link, const uint64_t* learned,
                                          hieragg_complete_fn stageDone, void* stageCtx) {
            // Stage 1 starts from stage 0's completion, outside the start's lock.
            std::lock_guard<std::recursive_mutex> lock(comm->mutex);
            CallNumbers numbers;
            numbers.persistentId = persistentId;
            if (persistentId < 0) {
                numbers.reserved = &reserved;
                numbers.link = static_cast<uint32_t>(link);
            }
            numbers.countCall = link == 1;  // the data stage names the row that served
            return launchTask(*comm, a, Runtime::instance()->transport(), numbers, stageDone, stageCtx,
                              VarStage{link + 1, learned});
        });
        if (status == 0) chain.release();  // the chain owns itself until it completes the call
        return status;
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    }
}

// Starts the call `args` (the decomposition exists). Returns an error code without
// calling `done` when nothing was started. A call of one Task reads its arrays only
// here (its schedule holds what it needs); a chain that starts links later holds them
// as `lifetime` requires (OwnedCallArgs).
int launch(hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId, hieragg_complete_fn done,
           void* ctx, ArgsLifetime lifetime) {
    Runtime* rt = Runtime::instance();
    if (strongReproducible(*rt, c, args)) return launchReproducible(c, args, persistentId, done, ctx, lifetime);
    if (!c.inter && hier::factsOf(args.kind).sizeStage != hier::SizeStage::None) {
        CollCall probe;
        try {
            prepareCall(c, args, probe, false);
        } catch (const std::bad_alloc&) {
            return HIERAGG_ERR_NO_MEM;
        }
        if (recipes::twoStage(probe)) return launchTwoStage(c, probe, persistentId, done, ctx, lifetime);
    }
    CallNumbers numbers;
    numbers.persistentId = persistentId;
    return launchTask(c, args, rt->transport(), numbers, done, ctx);
}

// The per-pair call numbers `args` may take on any one pair, at most (CallWindow.hpp):
// as launch() decides, a strong reduction's chain its links, a two-stage call two.
uint64_t callNumbersBound(const hieragg_comm& c, const hieragg_coll_args& args) {
    if (strongReproducible(*Runtime::instance(), c, args)) return ReproducibleCall::kMaxLinks;
    if (!c.inter && hier::factsOf(args.kind).sizeStage != hier::SizeStage::None) return 2;
    return 1;
}

// Whether the call may start now without meeting the tags of a call in flight here.
bool fitsWindow(const hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId) {
    const uint32_t w = Runtime::instance()->tags().window();
    if (persistentId >= 0) return c.window.fitsPersistent(static_cast<uint32_t>(persistentId), c.inter, w);
    return c.window.fitsCall(callNumbersBound(c, args), w);
}

void drainPending(hieragg_comm& c);

// A nonblocking call or persistent start counted in its communicator's window: its
// completion frees its numbers and starts the calls that waited for them.
struct WindowedCompletion {
    hieragg_comm* comm;
    uint64_t first;  // its first number (not persistent)
    int64_t persistentId;
    hieragg_complete_fn done;
    void* ctx;

    static void complete(void* self, int status) {
        std::unique_ptr<WindowedCompletion> w(static_cast<WindowedCompletion*>(self));
        hieragg_comm& c = *w->comm;
        std::lock_guard<std::recursive_mutex> lock(c.mutex);
        if (w->persistentId >= 0)
            c.window.closePersistent(static_cast<uint32_t>(w->persistentId));
        else
            c.window.closeCall(w->first);
        w->done(w->ctx, status);
        drainPending(c);
    }
};

// Launches a call that fits the window, counted in it (CallWindow.hpp). A blocking one
// is not recorded: nothing else starts on the communicator until it returns.
int launchCounted(hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId, hieragg_complete_fn done,
                  void* ctx, ArgsLifetime lifetime) {
    if (persistentId < 0 && done == BlockingWait::complete) {
        c.window.openCall(callNumbersBound(c, args), false);
        return launch(c, args, persistentId, done, ctx, lifetime);
    }
    auto* w = new (std::nothrow) WindowedCompletion{&c, 0, persistentId, done, ctx};
    if (!w) return HIERAGG_ERR_NO_MEM;
    if (persistentId >= 0) {
        c.window.openPersistent(static_cast<uint32_t>(persistentId));
    } else {
        try {
            w->first = c.window.openCall(callNumbersBound(c, args), true);
        } catch (const std::bad_alloc&) {
            delete w;
            return HIERAGG_ERR_NO_MEM;
        }
    }
    const int rc = launch(c, args, persistentId, WindowedCompletion::complete, w, lifetime);
    if (rc != 0) {  // nothing started, `done` not called
        if (persistentId >= 0)
            c.window.closePersistent(static_cast<uint32_t>(persistentId));
        else
            c.window.closeCall(w->first);
        delete w;
    }
    return rc;
}

// Runs the queued calls, in start order, while the next one fits the window (the
// decomposition exists). One that cannot start completes with its error (its caller has
// already returned). A call completing meanwhile does not drain again: this loop goes on.
void drainPending(hieragg_comm& c) {
    if (c.decomp != hieragg_comm::Decomp::Ready || c.window.draining) return;
    c.window.draining = true;
    while (!c.pending.empty() && fitsWindow(c, c.pending.front().args.args(), c.pending.front().persistentId)) {
        PendingStart p = std::move(c.pending.front());
        c.pending.pop_front();
        // p.args goes when this iteration ends: a chain copies what it keeps.
        const int rc = launchCounted(c, p.args.args(), p.persistentId, p.done, p.ctx, ArgsLifetime::UntilReturn);
        if (rc != 0) p.done(p.ctx, rc);
    }
    c.window.draining = false;
}

// The decomposition exists: run the calls that waited for it, in start order, as the
// window lets them. If it failed, each completes with that error.
void runPending(hieragg_comm& c, int status) {
    if (status == 0) return drainPending(c);
    std::deque<PendingStart> pending;
    pending.swap(c.pending);
    for (const PendingStart& p : pending) p.done(p.ctx, status);
}

// Says once per communicator that a call waits for the window (coll_hieragg_verbose=2).
void announceWait(hieragg_comm& c) {
    if (c.window.announced) return;
    c.window.announced = true;
    Runtime* rt = Runtime::instance();
    rt->verbose(2, "hieragg: tags: a call on a communicator of " + std::to_string(c.size) +
                       " ranks waits: it would reuse the tags of a call still in flight here (" +
                       std::to_string(c.window.inFlight()) + " in flight, window " +
                       std::to_string(rt->tags().window()) +
                       "); it starts when the older calls complete (once per communicator, world rank " +
                       std::to_string(c.worldRank) + ")");
}

int startCall(hieragg_comm& c, const hieragg_coll_args& args, int64_t persistentId, hieragg_complete_fn done,
              void* ctx, ArgsLifetime lifetime) {
    if (!Runtime::instance()) return HIERAGG_ERR_INTERNAL;
    std::lock_guard<std::recursive_mutex> lock(c.mutex);
    if (c.decomp == hieragg_comm::Decomp::Ready && c.pending.empty()) {
        // A blocking call with nothing in flight here: no tags to keep clear of, and
        // nothing starts before it returns (the repeated-call path pays three tests).
        if (done == BlockingWait::complete && persistentId < 0 && c.window.idle())
            return launch(c, args, persistentId, done, ctx, lifetime);
        if (fitsWindow(c, args, persistentId)) return launchCounted(c, args, persistentId, done, ctx, lifetime);
    }
    try {
        // Launched after this returns: a nonblocking caller's arrays are copied now.
        c.pending.push_back({OwnedCallArgs::held(args, sideOf(c), lifetime), done, ctx, persistentId});
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    }
    if (c.decomp == hieragg_comm::Decomp::Ready) {
        // Behind the window (or behind a call that waits for it): a call in flight here
        // completes and drains the queue from the progress engine.
        announceWait(c);
        return 0;
    }
    beginDecomposition(c, runPending);  // may run the pending calls at once
    return 0;
}

// Intercommunicators: Open MPI skips some inits on ranks whose count is 0 (e.g.
// MPIX_Reduce_init at MPI_PROC_NULL), so a per-communicator number would drift there;
// a persistent request is numbered per pair instead, from the schedule (no
// decomposition needed), as calls are.
int numberInterPersistent(hieragg_comm& c, const hieragg_coll_args& args, uint32_t id) {
    try {
        CollCall call;
        std::shared_ptr<const Schedule> sched;
        if (int rc = scheduleFor(c, args, call, sched)) return rc;
        PersistentTags tags;
        takePersistentTags(c, *sched, tags);
        c.persistentTags[id] = std::move(tags);
        return 0;
    } catch (const std::bad_alloc&) {
        return HIERAGG_ERR_NO_MEM;
    } catch (const std::exception& e) {
        Runtime::instance()->warn(std::string("hieragg: ") + hieragg_coll_name(args.kind) + ": " + e.what());
        return HIERAGG_ERR_UNSUPPORTED;
    }
}

}  // namespace

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
            if (c->offload) {
                rt->removePoller(c->offload.get());
                c->offload->closeForExit();
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
        c->costs = rt->costs();  // until the network calibration (if any) refines them
        rt->registerComm(comm, c);
    }
    return c;
}

void hieragg_comm_destroy(hieragg_comm* comm) {
    if (!comm) return;
    if (Runtime* rt = Runtime::instance()) {
        rt->unregisterComm(comm->comm, comm);
        if (comm->offload) {
            rt->removePoller(comm->offload.get());
            // Tests count these: a communicator whose state is never destroyed leaks its endpoint.
            rt->verbose(2, "hieragg: offload: endpoint of a communicator of " + std::to_string(comm->size) +
                               " ranks closed (world rank " + std::to_string(comm->worldRank) + ")");
        }
        // A communicator freed while its identity exchange still runs (no collective of it
        // ever completed here): the exchange must not call back into freed state.
        if (comm->decomp == hieragg_comm::Decomp::Exchanging) rt->forget(comm);
    }
    // Calls still queued never start now: their requests complete with an error rather
    // than never (MPI_Comm_free with calls outstanding).
    std::deque<PendingStart> queued;
    queued.swap(comm->pending);
    for (const PendingStart& p : queued) p.done(p.ctx, HIERAGG_ERR_INTERNAL);
    delete comm;
}

void hieragg_comm_freeing(void* comm) {
    Runtime* rt = Runtime::instance();
    if (!rt) return;
    hieragg::Transport* offload = nullptr;
    rt->withComm(comm, [&](hieragg_comm& c) { offload = c.offload.get(); });
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

int hieragg_run(hieragg_comm* c, const hieragg_coll_args* args) {
    BlockingWait w;
    int rc = 0;
    if (!runRepeat(*c, *args, w, &rc))
        rc = startCall(*c, *args, -1, BlockingWait::complete, &w, ArgsLifetime::UntilCompletion);
    if (rc != 0) return rc;
    c->callCache.wait(w, Runtime::instance()->transport());
    return w.status;
}

int hieragg_persistent_init(hieragg_comm* c, const hieragg_coll_args* args, uint32_t* id) {
    if (!Runtime::instance()) return HIERAGG_ERR_INTERNAL;
    std::lock_guard<std::recursive_mutex> lock(c->mutex);
    // Every start runs the init's arguments: the application may free its arrays now.
    const hieragg_coll_args* own = nullptr;
    try {
        OwnedCallArgs& held = c->persistentArgs[c->persistentCount];
        held.assign(*args, sideOf(*c));
        own = &held.args();
    } catch (const std::bad_alloc&) {
        c->persistentArgs.erase(c->persistentCount);
        return HIERAGG_ERR_NO_MEM;
    }
    *id = c->persistentCount++;
    const int rc = c->inter ? numberInterPersistent(*c, *own, *id) : 0;
    if (rc != 0) c->persistentArgs.erase(*id);  // the shim frees the request without hieragg_persistent_free
    return rc;
}

void hieragg_persistent_free(hieragg_comm* c, uint32_t id) {
    std::lock_guard<std::recursive_mutex> lock(c->mutex);
    c->persistentTags.erase(id);
    c->persistentArgs.erase(id);
}

int hieragg_start_persistent(hieragg_comm* c, const hieragg_coll_args* args, uint32_t id,
                             hieragg_complete_fn done, void* ctx) {
    std::lock_guard<std::recursive_mutex> lock(c->mutex);
    // The init's copy lives until hieragg_persistent_free, which comes after the last
    // start completed: no copy per start.
    auto held = c->persistentArgs.find(id);
    const hieragg_coll_args& run = held != c->persistentArgs.end() ? held->second.args() : *args;
    return startCall(*c, run, id, done, ctx, ArgsLifetime::UntilCompletion);
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

void hieragg_read_network_cost(void* comm, double out[3]) {
    out[0] = out[1] = out[2] = 0;
    Runtime* rt = Runtime::instance();
    if (!rt) return;
    const hier::LinkCost* l = &rt->costs().link[hier::kLinkNetwork];
    out[0] = l->alpha_us;
    out[1] = l->beta_us_per_byte * 1000.0;
    out[2] = hier::exchangeRoundUs(*l);
    rt->withComm(comm, [&](hieragg_comm& c) {
        std::lock_guard<std::recursive_mutex> lock(c.mutex);  // the calibration may be writing it
        out[0] = c.costs.link[hier::kLinkNetwork].alpha_us;
        out[1] = c.costs.link[hier::kLinkNetwork].beta_us_per_byte * 1000.0;
        out[2] = hier::exchangeRoundUs(c.costs.link[hier::kLinkNetwork]);
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
