#include "CallPreparation.hpp"

#include <cstdio>
#include <string>

#include "CallCacheKeys.hpp"
#include "CallVectors.hpp"
#include "hieragg/CallBinding.hpp"
#include "hieragg/hier/AlgorithmRegistry.hpp"
#include "hieragg/hier/CollectiveFacts.hpp"
#include "hieragg/hier/Recipes.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/TempLimit.hpp"

namespace hieragg {

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
    if (!c.selection.rulesEvaluated) {
        c.selection.rulesEvaluated = true;
        const std::string file = "coll:hieragg: WARNING: rules file " + rt.rulesPath() + ": ";
        if (!rt.rules()) {
            if (c.worldRank == 0 && !rt.rulesProblem().empty())
                rt.warnOnce(file + rt.rulesProblem() + "; the cost model decides instead");
        } else if (!c.inter) {
            const hier::Hierarchy* h = c.decomp.hierarchy.get();
            const int subspaces = h && !h->isTrivial() ? h->groupCount(0) : 1;
            std::vector<std::string> outOfRange;
            c.selection.determinations =
                std::make_unique<hier::Determinations>(rt.rules(), c.size, subspaces, &outOfRange);
            // A single rank has nothing to select: no warning for MPI_COMM_SELF and the like.
            for (const std::string& o : outOfRange)
                if (c.worldRank == 0 && c.size > 1)
                    rt.warnOnce(file + o + "; the cost model decides for other communicators");
        }
    }
    if (!c.selection.determinations || call.algorithm != 0) return nullptr;
    const hier::RuleCandidate* rule = c.selection.determinations->ruleFor(call);
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

// The fields of `call` that come from the communicator and the settings alone (every
// call fills them, the last-call shortcut too).
void fillFromCommunicator(const hieragg_comm& c, const hieragg_coll_args& args, const Runtime& rt, CollCall& call) {
    call.args = args;
    call.rank = c.rank;
    call.size = c.size;
    call.inter = c.inter;
    call.remoteSize = c.remoteSize;
    call.hierarchy = c.decomp.hierarchy.get();
    call.segmentBytes = rt.config().segment_size ? rt.config().segment_size : 64 * 1024;
    // coll_hieragg_reproducible=order|strong: no offloaded float/double SUM/PROD unless the
    // provider fixes the combination order (AlgorithmRegistry.cpp).
    call.fixedOrderRequired = rt.config().reproducible != HIERAGG_REPRODUCIBLE_NONE;
    call.costs = &c.selection.costs;
    // Before the refusal check: type2 needs the stages' link classes (switch levels).
    call.stageLinks = c.selection.stageLinks.empty() ? nullptr : &c.selection.stageLinks;
    call.switchEntries = rt.config().switch_entries;
    call.switchDegree = rt.config().switch_degree;
    call.maxTempBytes = rt.config().max_temp_bytes;
}

}  // namespace

const hier::RuleCandidate* prepareCall(hieragg_comm& c, const hieragg_coll_args& args, CollCall& call,
                                       bool offloadAllowed) {
    Runtime* rt = Runtime::instance();
    fillFromCommunicator(c, args, *rt, call);
    call.algorithm = rt->config().algorithm[args.kind];
    describeTypes(call, rt->transport());
    if (c.offload.on && offloadAllowed) {
        // Every rank of the communicator knows what the leaders' group can run.
        call.offload = &c.offload.caps;
        if (args.kind == HIERAGG_ALLREDUCE)
            rt->transport().numericKind(args.rtype, args.op, call.elemKind, call.opKind);
    }
    refuseUnfit(call, c, *rt);
    // Every start (direct, queued behind the identity exchange, persistent, a strong
    // chain's link) comes through here, so the rules file decides for all of them.
    return ruleFor(call, c, *rt);
}

namespace {

// After a call whose signature became (or was) the last one: keeps its raw arguments for
// scheduleFor's first check when nothing but them can change its signature. Only on
// predefined datatypes: a derived type's handle may be freed and reused by another layout.
// The per-rank vectors are compared by value against the last signature's (LastCall::vectors).
void rememberRaw(hieragg_comm& c, const hieragg_coll_args& args, const CollCall& call, VarStage stage) {
    const bool predefined = (!args.stype || call.stype.predefined) && (!args.rtype || call.rtype.predefined);
    if (stage.stage != 0 || c.inter || c.offload.on || !predefined || !hier::rawRepeatable(args.kind)) return;
    // runRepeat serves kinds without per-rank vectors, never a strong reduction (a chain).
    const bool compilable =
        hier::factsOf(args.kind).vectors == hier::kNoVectors && !strongReproducible(*Runtime::instance(), c, args);
    c.cache.last.keepRaw(args, call.stype, call.rtype, call.algorithm, compilable);
}

}  // namespace

int scheduleFor(hieragg_comm& c, const hieragg_coll_args& args, CollCall& call,
                std::shared_ptr<const Schedule>& sched, bool offloadAllowed, VarStage stage) {
    Runtime* rt = Runtime::instance();
    // The last call again, with the same raw arguments on predefined datatypes (an 8-byte
    // loop): its signature is the last one, so the fields that building, the keys and the
    // launch read are the last call's. Offload and intercommunicators take the full path.
    if (stage.stage == 0 && c.cache.last.repeatsRaw(args)) {
        fillFromCommunicator(c, args, *rt, call);
        // Its per-rank vectors by value: the application may rewrite the same arrays.
        if (sameVectors(call, *c.cache.last.vectors)) {
            call.stype = c.cache.last.rawStype;
            call.rtype = c.cache.last.rawRtype;
            call.algorithm = c.cache.last.rawAlgorithm;
            call.plan = c.cache.last.plan;
            sched = c.cache.last.schedule;
            c.cache.last.isLast = true;
            return 0;
        }
    }
    c.cache.last.dropRaw();
    const hier::RuleCandidate* rule = prepareCall(c, args, call, offloadAllowed);
    const bool overridden = call.algorithm != 0;
    call.varStage = stage.stage;
    call.learnedBytes = stage.learned;
    // After an agreed fabric failure this leader's transport runs the offloaded stages over
    // the PML (docs/offload.md): rank 0 (leader 0) keys its plans and schedules apart then,
    // so the first call of each kind after it rebuilds the same plan and says so. Only a
    // key of this rank changes: the plan does not, so nobody else needs to know.
    const bool offloadFellBack = c.offload.on && c.offload.transport && c.offload.transport->fellBack();
    // Back-to-back calls of one signature (a loop of 8-byte bcasts) take the last call's
    // plan and schedule without building key strings or looking up either cache: at 8 B
    // the call's own cost is what limits a stream of calls (docs/performance.md).
    // Per-rank vectors enter the key as a digest; the last call's and each cached
    // schedule's vectors are compared by value (CallVectors.hpp, ScheduleCache.hpp).
    // The signature: the schedule key (with the stage and the fallback mark), then the plan key.
    CallKey sig;
    c.cache.last.isLast = false;
    writeScheduleKey(call, sig);
    sig.add(call.varStage).add(offloadFellBack);
    const size_t scheduleKeyBytes = sig.size();
    if (hier::modelDriven(args.kind)) writePlanKey(call, rule, sig);
    if (c.cache.last.schedule && sig.equals(c.cache.last.signature) && sameVectors(call, *c.cache.last.vectors)) {
        call.plan = c.cache.last.plan;
        sched = c.cache.last.schedule;
        c.cache.last.isLast = true;
        rememberRaw(c, args, call, stage);
        return 0;
    }
    bool newPlan = false;
    if (hier::modelDriven(args.kind)) {
        const std::string pk = planCacheKey(call, rule) + (offloadFellBack ? "|fell-back" : "");
        std::shared_ptr<const hier::Plan>* found = c.cache.plans.find(pk);
        if (!found) {
            hier::Plan plan = hier::choosePlan(call, c.selection.costs);
            if (rule) hier::applyRuleTunables(plan, *rule, "rules file");
            // A candidate that was not available says why once (e.g. no type II tree fits).
            if (!plan.note.empty() && (c.rank == 0 || c.inter)) rt->verboseOnce(1, plan.note);
            found = &c.cache.plans.insert(pk, std::make_shared<const hier::Plan>(std::move(plan)));
            newPlan = true;
        }
        call.plan = *found;
    }

    const std::string key = sig.prefix(scheduleKeyBytes);
    const CachedSchedule* entry = c.cache.schedules.find(key, call);
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
        entry = &c.cache.schedules.insert(key, call, sched);
    }
    c.cache.last.signature = sig.str();
    c.cache.last.plan = call.plan;
    c.cache.last.schedule = sched;
    c.cache.last.vectors = entry->vectors;
    c.cache.last.servedValid = false;  // countServed finds this signature's rows
    c.cache.last.isLast = sig.fits();  // an overflowed key never matches: nothing to remember
    if (c.cache.last.isLast) rememberRaw(c, args, call, stage);
    return 0;
}

CallSide sideOf(const hieragg_comm& c) {
    CallSide s;
    s.rank = c.rank;
    s.size = c.size;
    s.inter = c.inter;
    s.remoteSize = c.remoteSize;
    return s;
}

}  // namespace hieragg
