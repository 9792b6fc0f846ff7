#!/usr/bin/env python3
"""Instructions per call from two callgrind profiles of N1 and N2 calls, without waiting.

bench/percall-instructions.sh runs one collective N1 and N2 times with callgrind collecting
inside PMPI_<Coll> only, and passes both profiles here. A blocking call that waits for its
peers spins in Open MPI's progress engine; how many times depends on the other ranks' timing,
not on the call. So each profile's count drops its idle progress polls:

    Ir_without_waiting = Ir - (P - W) * I,
    I = (incl(opal_progress) - incl(callbacks) + self(wait loops)) / P

P is the number of opal_progress calls (each pass of a blocking wait loop makes one, in both
stacks), W the number of the PML's receive callbacks (mca_pml_ob1_recv_frag_callback_*: one
per arriving fragment, whose whole cost is kept), and I the cost of one poll apart from those
callbacks (the progress loop, the BTL's scan of its mailboxes, every registered progress
callback, hieragg's included) plus the waiting loop's own instructions around it: the self
cost of the functions that call opal_progress (and, through wrappers called once per poll,
the function whose loop it is: Open MPI's request wait for tuned, CallCache::wait for
hieragg) over P, an upper bound of one pass's since it includes what such a function does
once per wait. Every fragment keeps one poll to find it; every other poll found nothing and
is waiting. The result per call is the difference of the two profiles
divided by N2 - N1, which removes set-up (first call, connections). Every number comes from
callgrind's call counts and inclusive costs: the same profiles give the same result.

Messages: the point-to-point messages the measured rank posts per call (calls of the PML's
send and receive entries, blocking or not: both stacks post every message through them), so
that cells whose schedules send different numbers of messages (tuned's linear barrier at
np 4 against hieragg's tree) can also be compared per message.

usage: callgrind_percall.py PROFILE_N1 PROFILE_N2 N1 N2
           -> "raw wait-free polls/call messages/call"
       callgrind_percall.py --functions K PROFILE_N1 PROFILE_N2 N1 N2
           -> also the K functions of largest inclusive cost per call (for profiling)
"""
import re
import sys

PROGRESS = "opal_progress"
CALLBACK = re.compile(r"^mca_pml_ob1_recv_frag_callback_")
MESSAGE = re.compile(r"^mca_pml_(ob1|ucx|cm)_i?(send|recv)$")


def profile_total(path, summary, totals):
    """The profile's Ir: its `summary:` line(s), as callgrind_annotate takes it.

    Callgrind's format (valgrind manual, "Callgrind Format Specification") defines `summary:`
    as the profile's summary cost, equal to or larger than the total of all self costs (the
    cost lines may not represent every cost of the run); callgrind writes the events its
    threads collected there. `totals:` (at the end) must be the total of all cost lines, for
    a consistency check. So summary is the profile's count; totals only when a file has no
    summary (as callgrind_annotate does). Both should agree in a callgrind profile: where
    they differ, the cost lines (and so every per-function number here) do not add up to
    the summary, and that is said loudly instead of silently picking one."""
    if summary is None and totals is None:
        sys.exit(f"callgrind_percall: {path}: neither a summary: nor a totals: line")
    if summary is not None and totals is not None and summary != totals:
        print(f"callgrind_percall: WARNING: {path}: summary: {summary} and totals: {totals} differ "
              f"by {totals - summary:+d} Ir (the cost lines do not add up to the summary); "
              f"using summary:", file=sys.stderr)
    return summary if summary is not None else totals


def parse(path):
    """Total Ir (profile_total); per called function its calls and inclusive Ir summed over
    its call arcs; per function its self Ir; and the call arcs (caller, callee) -> calls."""
    names, calls, incl, self_ir, arcs = {}, {}, {}, {}, {}
    # One summary: and one totals: line per part (a file may hold several: summed).
    lines = {"summary:": None, "totals:": None}
    fn, cfn, pending = None, None, None

    def name(field):
        m = re.match(r"\((\d+)\)(?:\s+(.*))?$", field)
        if not m:
            return field
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names[m.group(1)]

    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("fn="):
                fn = name(line[3:].rstrip("\n"))
            elif line.startswith("cfn="):
                cfn = name(line[4:].rstrip("\n"))
            elif line.startswith("calls="):
                pending = int(line[6:].split()[0])
            elif line.startswith(("summary:", "totals:")):
                key, ir = line.split()[:2]
                lines[key] = (lines[key] or 0) + int(ir)
            elif line[:1] and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                ir = int(parts[1]) if len(parts) > 1 else 0
                if pending is None:
                    self_ir[fn] = self_ir.get(fn, 0) + ir
                    continue
                calls[cfn] = calls.get(cfn, 0) + pending
                incl[cfn] = incl.get(cfn, 0) + ir
                arcs[(fn, cfn)] = arcs.get((fn, cfn), 0) + pending
                pending = None
    return profile_total(path, lines["summary:"], lines["totals:"]), calls, incl, self_ir, arcs


def wait_loop(profile):
    """The functions of the waiting loops: the callers of opal_progress, and while a caller
    is only a wrapper (called once per poll, from one place), its caller in turn."""
    _, calls, _, _, arcs = profile
    polls = calls.get(PROGRESS, 0)
    loop, frontier = set(), [PROGRESS]
    while frontier:
        callee = frontier.pop()
        for (caller, c), n in arcs.items():
            if c != callee or caller in loop or caller == PROGRESS:
                continue
            loop.add(caller)
            if calls.get(caller, 0) == n == polls:
                frontier.append(caller)  # a wrapper: its caller holds the loop
    return loop


def without_waiting(profile):
    total, calls, incl, self_ir, _ = profile
    polls = calls.get(PROGRESS, 0)
    found = sum(n for f, n in calls.items() if CALLBACK.match(f))
    if polls == 0:
        return total, 0, 0
    per_poll = (incl.get(PROGRESS, 0) - sum(c for f, c in incl.items() if CALLBACK.match(f))) / polls
    # The waiting loops' own instructions, spread over their passes (an upper bound of one
    # pass's: it includes what the loop function does once per wait).
    per_poll += sum(self_ir.get(f, 0) for f in wait_loop(profile)) / polls
    return total - max(0, polls - found) * per_poll, polls, per_poll


def main(argv):
    top = 0
    if argv and argv[0] == "--functions":
        top, argv = int(argv[1]), argv[2:]
    if len(argv) != 4:
        sys.exit(__doc__)
    a, b = parse(argv[0]), parse(argv[1])
    n = int(argv[3]) - int(argv[2])
    if n <= 0:
        sys.exit("callgrind_percall: N2 must exceed N1")
    (wa, pa, ia), (wb, pb, ib) = without_waiting(a), without_waiting(b)
    messages = sum(c for f, c in b[1].items() if MESSAGE.match(f)) - sum(c for f, c in a[1].items() if MESSAGE.match(f))
    print(f"{(b[0] - a[0]) / n:.0f} {(wb - wa) / n:.0f} {(pb - pa) / n:.1f} {messages / n:.2f}")
    if top:
        diff = {f: (b[2].get(f, 0) - a[2].get(f, 0)) / n for f in set(a[2]) | set(b[2])}
        ncalls = {f: (b[1].get(f, 0) - a[1].get(f, 0)) / n for f in diff}
        print(f"idle poll: {ia:.0f} / {ib:.0f} instructions")
        for f in sorted(diff, key=lambda f: -diff[f])[:top]:
            print(f"{diff[f]:9.0f} {ncalls[f]:7.2f}  {f[:150]}")


if __name__ == "__main__":
    main(sys.argv[1:])
