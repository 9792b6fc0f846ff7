// Inclusive scan: rank i gets a_0 op ... op a_i (ScanPulses.hpp): flat recursive doubling or,
// over contiguous groups when the model prefers it, the leader prefix or the leader chain.
#include <vector>

#include "ReductionPulses.hpp"
#include "ScanPulses.hpp"
#include "hieragg/algorithms/LinearScan.hpp"
#include "hieragg/algorithms/RecursiveDoublingScan.hpp"
#include "hieragg/algorithms/TreeBcast.hpp"
#include "hieragg/hier/Hierarchy.hpp"
#include "hieragg/hier/Selection.hpp"
#include "hieragg/hier/Recipes.hpp"

namespace hieragg::recipes {

namespace {
// What every scan row shares: its pulses are one fragment template (emitPulses), its
// scratch a ring of kPulseWindow pulse-sized slots; pulse 0 reads the input at offset 0
// and writes out at offset 0, plan.perPulse elements.
struct ScanPulses {
    ScheduleBuilder& b;
    const CollCall& c;
    const PulsePlan plan;
    const size_t bytes, slots;
    FragmentPipeline frags;
    const BufRef input, out{kRecvBuf, 0};
    const TypeRef t;

    ScanPulses(ScheduleBuilder& builder, const CollCall& call)
        : b(builder), c(call), plan(PulsePlan::of(call, call.args.rcount)),
          bytes(CollCall::span(call.rtype, plan.perPulse)), slots(std::min(kPulseWindow, plan.pulses)),
          frags(plan.fragments(static_cast<ptrdiff_t>(plan.perPulse) * call.rtype.extent)),
          input(reductionInput(call)), t{kRecvType, plan.perPulse} {}
    // One pulse-sized buffer per ring slot; none when not needed (or no pulse).
    BufRef scratch(bool needed) {
        if (!needed || slots == 0) return BufRef{};
        const BufRef r = b.temp(bytes * slots, CollCall::bias(c.rtype));
        frags.setStride(r.slot, static_cast<ptrdiff_t>(bytes), true);
        return r;
    }
    // Exscan: this rank's input copied to `into` before out is written (in place over it).
    StepId keepInput(bool keep, BufRef into) const { return keep ? b.copy(input, t, into, t) : kNoStep; }
    template <class EmitPulse>
    void emit(EmitPulse pulse0) {
        emitPulses(b, plan, std::move(frags), pulse0);
    }
    // `p` (a scan algorithm's Pulse) reads pulse 0's input, writes its out, on `channel`.
    void bind(ScanPulse& p, uint32_t channel) const {
        p.input = input;
        p.out = out;
        p.type = t;
        p.channel = channel;
    }
    // A flat row: `scan` over the whole communicator on stage channel 0, every pulse
    // with `pulse`'s scratch.
    template <class Algorithm>
    Schedule flat(const Algorithm& scan, typename Algorithm::Pulse pulse) {
        bind(pulse, stageChannel(0));
        const Group g = Group::whole(c.size, c.rank);
        emit([&] { scan.emit(b, g, pulse); });
        return b.finish();
    }
};

// The leader rows' frame: the top-level group of this rank and the in-group
// recursive-doubling scan every pulse starts with (scratch s0, s1).
struct LeaderScanPulse : ScanPulses {
    const hier::Hierarchy& h;
    const int top, mine;
    Group inner;
    BufRef s0, s1;

    LeaderScanPulse(ScheduleBuilder& builder, const CollCall& call)
        : ScanPulses(builder, call), h(*call.hierarchy), top(h.levels() - 1), mine(h.groupOf(top, call.rank)) {
        inner.ranks = h.groupMembers(top, mine);
        inner.me = inner.indexOf(c.rank);
        s0 = scratch(true);
        s1 = scratch(true);
    }
    // The in-group scan of the pulse into out (exclusive: exscan), on stage channel 1.
    StepId innerScan(bool exclusive, const Deps& scratchFree) const {
        RecursiveDoublingScan::Pulse in;
        bind(in, stageChannel(1));
        in.scratch[0] = s0;
        in.scratch[1] = s1;
        in.scratchFree = scratchFree;
        return RecursiveDoublingScan{exclusive}.emit(b, inner, in);
    }
};
}  // namespace

// Leader prefix (SPEC 3.1; registry row leader_prefix, contiguous groups): per pulse, a
// recursive-doubling scan inside each outermost group (exscan: exclusive, and the last
// rank adds its own input to get the group total), an exclusive recursive-doubling scan
// of the group totals among the groups' last ranks, a binomial bcast of that prefix E
// from the last rank into its group, and every rank of group g > 0 finishes E op
// (its in-group prefix). Groups are contiguous and ascending, so every product stays in
// rank order (non-commutative ops too); only the totals cross between groups.
Schedule leaderPrefix(const CollCall& c, bool exclusive) {
    ScheduleBuilder b(exclusive ? "leader-prefix-exscan" : "leader-prefix-scan");
    LeaderScanPulse f(b, c);
    const Group& inner = f.inner;
    const int mine = f.mine;
    const int last = inner.ranks.back();
    const bool leader = c.rank == last;
    Group leaders;
    for (int g = 0; g < f.h.groupCount(f.top); ++g) leaders.ranks.push_back(f.h.groupMembers(f.top, g).back());
    leaders.me = leader ? mine : -1;
    const MemberTree fromLast = TreeShape::knomial(2).build(inner.size(), inner.size() - 1);
    const BufRef ownTotal = f.scratch(exclusive && leader), prefix = f.scratch(mine > 0);
    const BufRef out = f.out;
    const TypeRef t = f.t;
    f.emit([&] {
        // Exscan: the leader's own input, for the group total.
        StepId totalReady = f.keepInput(exclusive && leader, ownTotal);
        const StepId innerDone = f.innerScan(exclusive, totalReady);
        Deps all{innerDone};
        // The group total on its last rank: out (scan), or out op own input (exscan, unless alone).
        BufRef total = out;
        if (exclusive && leader) {
            total = ownTotal;
            if (inner.size() > 1) totalReady = b.reduce(out, ownTotal, t, {innerDone, totalReady});
        } else {
            totalReady = innerDone;
        }
        StepId prefixReady = kNoStep;
        if (leader && leaders.size() > 1) {
            RecursiveDoublingScan::Pulse lp;
            lp.input = total;
            lp.out = mine > 0 ? prefix : f.s0;  // group 0's prefix is empty: out untouched
            lp.type = t;
            lp.scratch[0] = f.s0;
            lp.scratch[1] = f.s1;
            lp.scratchFree = Deps{totalReady, innerDone};
            lp.channel = stageChannel(2);
            prefixReady = RecursiveDoublingScan{true}.emit(b, leaders, lp);
            all.add(prefixReady);
        }
        if (mine > 0) {
            const Emitted e = TreeBcast{fromLast}.emit(b, inner, prefix, t, c.rtype.extent, prefixReady, {},
                                                       stageChannel(3));
            all.add(e.done);
            const Deps ready{e.ready, innerDone};
            if (exclusive && inner.me == 0) all.add(b.copy(prefix, t, out, t, ready));
            else all.add(b.reduce(prefix, out, t, ready));  // out = E op in-group prefix
        }
        b.join(all);
    });
    return b.finish();
}

// Leader chain (registry row leader_chain, contiguous groups): per pulse, the recursive-
// doubling scan inside each group, then the prefix E_g of the earlier groups travels in
// rank order: group g's first rank receives E_g from group g - 1's last rank and
// broadcasts it down a binomial tree rooted at itself; every rank finishes E_g op (its
// in-group prefix); the last rank's result (exscan: that op its own input) is E_{g+1},
// sent on to group g + 1's first rank. Every message goes from a lower to a higher rank,
// so no rank ever waits for a later rank: back-to-back calls overlap (a call's crossings
// are not repeated per call), where the leader prefix's bcast from the last rank back to
// the group's first ranks ties each call to the previous one's crossings.
Schedule leaderChain(const CollCall& c, bool exclusive) {
    ScheduleBuilder b(exclusive ? "leader-chain-exscan" : "leader-chain-scan");
    LeaderScanPulse f(b, c);
    const Group& inner = f.inner;
    const int mine = f.mine, groups = f.h.groupCount(f.top);
    const bool first = inner.me == 0, last = inner.me == inner.size() - 1;
    const bool receives = mine > 0, passes = last && mine + 1 < groups;
    const int from = receives ? f.h.groupMembers(f.top, mine - 1).back() : -1;
    const int to = passes ? f.h.groupMembers(f.top, mine + 1).front() : -1;
    const MemberTree fromFirst = TreeShape::knomial(2).build(inner.size(), 0);
    // Exscan: the last rank's own input (kept before out is written in place), then E_{g+1}.
    const BufRef own = f.scratch(exclusive && passes), prefix = f.scratch(receives);
    const BufRef out = f.out;
    const TypeRef t = f.t;
    f.emit([&] {
        const StepId ownReady = f.keepInput(exclusive && passes, own);
        const StepId innerDone = f.innerScan(exclusive, ownReady);
        Deps all{innerDone};
        // out = E_g op (in-group prefix); exscan's first rank has no in-group prefix: out = E_g.
        StepId outReady = innerDone;
        if (receives) {
            const StepId got = first ? b.recv(from, prefix, t, {}, stageChannel(2)) : kNoStep;
            const Emitted e = TreeBcast{fromFirst}.emit(b, inner, prefix, t, c.rtype.extent, got, {}, stageChannel(3));
            all.add(e.done);
            const Deps ready{e.ready, innerDone};
            outReady = exclusive && first ? b.copy(prefix, t, out, t, ready) : b.reduce(prefix, out, t, ready);
            all.add(outReady);
        }
        if (passes) {
            // E_{g+1}: the last rank's inclusive result. Exscan: out op own input, except on
            // rank 0 alone in group 0, whose out MPI leaves undefined: E_1 = its input.
            BufRef next = out;
            StepId nextReady = outReady;
            if (exclusive) {
                next = own;
                nextReady = ownReady;
                if (receives || inner.size() > 1) nextReady = b.reduce(out, own, t, {outReady, ownReady});
            }
            all.add(b.send(to, next, t, nextReady, stageChannel(2)));
        }
        b.join(all);
    });
    return b.finish();
}

// The rank chain (LinearScan): pulses (one fragment template) stream down it, kPulseWindow
// scratch slots in flight.
Schedule linearPrefix(const CollCall& c, bool exclusive) {
    ScheduleBuilder b(exclusive ? "flat-linear-exscan" : "flat-linear-scan");
    ScanPulses f(b, c);
    const LinearScan scan{exclusive};
    LinearScan::Pulse pulse;
    pulse.commutative = c.args.op_commutative != 0;
    pulse.scratch = f.scratch(scan.usesScratch(c.rank, c.size, c.args.in_place != 0, pulse.commutative));
    return f.flat(scan, pulse);
}

Schedule prefixReduction(const CollCall& c, bool exclusive) {
    const std::shared_ptr<const hier::Plan> sel = hier::planOf(c);
    if (auto built = builtByRow(c, *sel)) return std::move(*built);
    ScheduleBuilder b(exclusive ? "flat-recursive-doubling-exscan" : "flat-recursive-doubling-scan");
    ScanPulses f(b, c);
    const RecursiveDoublingScan scan{exclusive};
    RecursiveDoublingScan::Pulse pulse;
    for (int i = 0; i < scan.scratchCount(); ++i) pulse.scratch[i] = f.scratch(true);
    return f.flat(scan, pulse);
}

Schedule scan(const CollCall& c) { return prefixReduction(c, false); }

}  // namespace hieragg::recipes
