#!/usr/bin/env python3
"""Turns the raw logs of bench/perf-compare.sh into a markdown table, a CSV and a
PNG plot: per layout, collective and size, the median t_max of each stack over
the interleaved runs, its spread ((max - min) / median), the link-bandwidth
bound, hieragg / best competitor and hieragg's share of the bound.

Raw logs are RAW/<layout>.<stack>.run<k>.log with the lines hieragg-bench
prints (CELL, PINGPONG, LAYOUT) and the driver's CRASH / TIMEOUT / SKIPPED."""
import argparse
import csv
import datetime
import math
import os
import re
import shutil
import statistics
from collections import defaultdict

from publish_block import MarkerError, replace_block

STACKS = ["hieragg", "tuned", "han"]
LABEL = {"hieragg": "hieragg", "tuned": "tuned", "han": "HAN"}


def size_label(b):
    b = int(b)
    if b == 0:
        return "-"
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return f"{b >> 20} MiB"
    if b >= 1024 and b % 1024 == 0:
        return f"{b >> 10} KiB"
    return f"{b} B"


def time_label(us):
    if us is None:
        return ""
    if us >= 1000:
        return f"{us / 1000:.2f} ms" if us < 10000 else f"{us / 1000:.1f} ms"
    return f"{us:.0f} µs" if us >= 10 else f"{us:.1f} µs"


def bound_us(coll, m, nodes, ranks, bw):
    """Time the inter-node links need at least (bandwidth term only), in us.
    bw in bytes/s; m is IMB's message size (see hieragg-bench)."""
    if not bw or nodes < 2 or m < 1024 or coll == "barrier":
        return None
    N, P = nodes, ranks
    factor = {
        "bcast": 1.0,  # the root's node sends m at least once
        "reduce": 1.0,  # the root's node receives m at least once
        "scan": 1.0,  # a later node needs the earlier nodes' prefix
        "allreduce": 2.0 * (N - 1) / N,
        "allreduce_inplace": 2.0 * (N - 1) / N,
        "reduce_scatter": (N - 1) / N,
        "allgather": (N - 1) / N * P,
        "allgatherv": (N - 1) / N * P,
        "gather": (N - 1) / N * P,  # everything off the root's node enters it
        "scatter": (N - 1) / N * P,
        "alltoall": (N - 1) / N * P * P / N,  # what one node's ranks send off the node
        "gatherv": (N - 1) / N * P,  # IMB's equal counts: as gather, scatter, alltoall
        "scatterv": (N - 1) / N * P,
        "alltoallv": (N - 1) / N * P * P / N,
    }.get(coll)
    return None if factor is None else factor * m / bw * 1e6


def latency_bound_us(coll, m, nodes, ranks, lat, local):
    """Issue 7's 8-byte target, in us: tree depth across nodes x the measured one-way
    inter-node latency + the intra-node cost (one-way latency inside a node x depth
    inside it). bcast goes down once; allreduce and barrier combine across nodes in
    ceil(log2 N) exchange rounds (recursive doubling / dissemination between the
    leaders) and go up and down inside the node. Only for 8-byte bcast, allreduce,
    barrier; hieragg's target is 1.3x this. IMB's t_max of back-to-back calls can beat
    it for bcast, whose calls overlap when nothing synchronises them."""
    if not lat or local is None or nodes < 2 or m >= 1024:
        return None
    inside = {"bcast": 1, "allreduce": 2, "allreduce_inplace": 2, "barrier": 2}.get(coll)
    if inside is None:
        return None
    per_node = max(1, ranks // nodes)
    d_inter = math.ceil(math.log2(nodes))
    d_intra = math.ceil(math.log2(per_node)) if per_node > 1 else 0
    return d_inter * lat + inside * d_intra * local


def link_bytes_per_s(link_bps, pingpongs):
    """B for the bound. The configured rate, as TCP payload: 1448 of every 1538
    bytes on the wire at MTU 1500 (headers, preamble, gap); the emulated links
    reach 112-113 MB/s of 117.7 possible at 1 Gbit/s. Without a configured rate,
    the best ping-pong (on a busy machine a single stream stalls now and then,
    which only lowers it)."""
    if link_bps:
        return link_bps / 8 * 1448 / 1538
    return max(pingpongs) * 1e6 if pingpongs else None


def parse(raw):
    cells = defaultdict(lambda: {"t": [], "flags": set()})  # (layout, coll, bytes, stack)
    info = defaultdict(lambda: {"bw": [], "lat": [], "local": [], "duplex": [], "nodes": None, "ranks": None})
    order = []
    for name in sorted(os.listdir(raw)):
        m = re.match(r"(.+)\.(hieragg|tuned|han)\.run(\d+)\.log$", name)
        if not m:
            continue
        layout, stack = m.group(1), m.group(2)
        for line in open(os.path.join(raw, name)):
            f = line.split()
            if not f:
                continue
            if f[0] == "LAYOUT":
                info[layout]["ranks"], info[layout]["nodes"] = int(f[2]), int(f[4])
            elif f[0] == "PINGPONG":
                (info[layout]["lat"] if int(f[1]) < 1024 else info[layout]["bw"]).append(float(f[3 if int(f[1]) >= 1024 else 2]))
            elif f[0] == "PINGDUPLEX":
                info[layout]["duplex"].append(float(f[2]))
            elif f[0] == "PINGLOCAL":
                info[layout]["local"].append(float(f[2]))
            elif f[0] == "CELL":
                key = (layout, f[1], int(f[2]), stack)
                if (f[1], int(f[2])) not in order:
                    order.append((f[1], int(f[2])))
                if f[7] == "ok":
                    cells[key]["t"].append(float(f[4]))
                else:
                    cells[key]["flags"].add("WRONG")
            elif f[0] in ("CRASH", "TIMEOUT", "SKIPPED"):
                key = (layout, f[1], int(f[2]), stack)
                if (f[1], int(f[2])) not in order:
                    order.append((f[1], int(f[2])))
                cells[key]["flags"].add("TIMEOUT" if f[0] == "TIMEOUT" else "CRASH")
    return cells, info, order


PLAN_RE = re.compile(r"hieragg: ([a-z_]+) on \d+ ranks: (\S+)(?:.*\[(\d+) B)?")
NETWORK_RE = re.compile(r"hieragg: network: alpha=([\d.]+) us beta=([\d.]+) ns/B")


def parse_plans(raw):
    """perf-compare --log-plans: each hieragg job's measured network and the plan each cell
    ran (coll_hieragg_verbose=2 lines kept in the run logs). Returns {layout: {"times":
    {(coll, bytes): {plan: [us, ...]}}, "networks": [(alpha, beta), ...]}}, empty without
    such lines. A cell takes the next plan line of its collective and size in the same log
    (allreduce_inplace counts as allreduce: the two cells' plans come in the bench's order;
    a plan line without a size, scan's, matches any size)."""
    out = {}
    for name in sorted(os.listdir(raw)):
        m = re.match(r"(.+)\.hieragg\.run(\d+)\.log$", name)
        if not m:
            continue
        lines = open(os.path.join(raw, name)).read().splitlines()
        plans = defaultdict(list)  # (coll, bytes or None) -> plans in order
        nets = []
        for line in lines:
            n = NETWORK_RE.search(line)
            if n:
                nets.append((float(n.group(1)), float(n.group(2))))
                continue
            p = PLAN_RE.search(line)
            if p:
                plans[(p.group(1), int(p.group(3)) if p.group(3) else None)].append(p.group(2))
        if not plans and not nets:
            continue
        lay = out.setdefault(m.group(1), {"times": defaultdict(lambda: defaultdict(list)), "networks": []})
        lay["networks"] += nets
        for coll, nbytes, us, plan in cells_with_plans(lines, plans, "?"):
            lay["times"][(coll, nbytes)][plan].append(us)
    return out


def cells_with_plans(lines, plans, missing):
    """The ok CELL lines of one job's log as (collective, bytes, t_max us, plan): each takes the
    next entry of plans[(collective, bytes)], else of plans[(collective, None)] (a plan line
    without a size, scan's, matches any size), else `missing`; allreduce_inplace's plan is an
    allreduce line, and when the component printed none for it (it prints a plan once per
    cell, and the in-place call plans like the allreduce before it) the allreduce's of the
    same size. The queues are consumed."""
    last = {}
    for line in lines:
        f = line.split()
        if len(f) < 8 or f[0] != "CELL" or f[7] != "ok":
            continue
        coll, nbytes = f[1], int(f[2])
        base = coll[:-len("_inplace")] if coll.endswith("_inplace") else coll
        queue = plans.get((base, nbytes)) or plans.get((base, None)) or []
        plan = queue.pop(0) if queue else last.get((base, nbytes), missing) if base != coll else missing
        last[(base, nbytes)] = plan
        yield coll, nbytes, float(f[4]), plan


def plans_table(plans, order):
    """OUT/plans.md: per layout and cell, the median time of the hieragg runs of each plan."""
    md = ["hieragg's time per plan (perf-compare --log-plans): the median t_max of the runs whose job ran that "
          "plan for the cell; a cell with more than one plan had its choice changed between runs by the "
          "network measured at setup.", ""]
    for layout in sorted(plans):
        lay = plans[layout]
        md.append(f"### {layout}")
        md.append("")
        if lay["networks"]:
            al = [x for x, _ in lay["networks"]]
            be = [y for _, y in lay["networks"]]
            md.append(f"Measured network over {len(al)} jobs: alpha {min(al):.0f}-{max(al):.0f} µs (median "
                      f"{statistics.median(al):.0f}), beta {min(be):.2f}-{max(be):.2f} ns/B (median "
                      f"{statistics.median(be):.2f}).")
            md.append("")
        md.append("| collective | size | plan | median | runs |")
        md.append("|---|---|---|---|---|")
        for coll, nbytes in order:
            by = lay["times"].get((coll, nbytes))
            if not by:
                continue
            for plan, t in sorted(by.items(), key=lambda kv: statistics.median(kv[1])):
                md.append(f"| {coll} | {size_label(nbytes)} | `{plan}` | {time_label(statistics.median(t))} | {len(t)} |")
        md.append("")
    return "\n".join(md)


def summarize(entry):
    t = entry["t"]
    if entry["flags"] & {"CRASH", "TIMEOUT"}:
        status = "CRASH" if "CRASH" in entry["flags"] else "TIMEOUT"
    elif "WRONG" in entry["flags"]:
        status = "WRONG"
    elif not t:
        status = "missing"
    else:
        status = "ok"
    if not t:
        return status, None, None, None
    med = statistics.median(t)
    return status, med, min(t), max(t)


def read_ratios(csv_path):
    """One profile's performance.csv: {(layout, collective, bytes): ratio or status} of hieragg."""
    out = {}
    with open(csv_path, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["stack"] != "hieragg":
                continue
            key = (r["layout"], r["collective"], int(r["bytes"]))
            out[key] = float(r["ratio_to_best_other"]) if r["ratio_to_best_other"] else r["status"]
    return out


# What each profile's ratio is held to (issue 20): the slow and fast profiles against the faster of
# tuned and HAN (fast: 1.05 up to 64 KiB, where the per-call cost decides, 1.0 above), one node
# against tuned.
def profile_target(profile, nbytes):
    if profile == "fast":
        return 1.05 if nbytes <= 65536 else 1.0
    return {"slow": 1.0, "one-node": 1.1}.get(profile, 1.0)


def combine(a):
    """--combine PROFILE=DIR ...: the side-by-side table of hieragg's ratio per profile and layout."""
    profiles = []
    for spec in a.combine:
        name, _, d = spec.partition("=")
        path = os.path.join(d, "performance.csv")
        if not os.path.exists(path):
            print(f"perf-report: WARNING: profile {name}: no {path} (that profile did not run); left out")
            continue
        profiles.append((name, read_ratios(path)))
    if not profiles:
        raise SystemExit("perf-report: no profile produced a performance.csv")
    columns = []  # (profile, layout)
    cells = []    # (collective, bytes) in first-seen order
    for name, ratios in profiles:
        for (layout, coll, b) in ratios:
            if (name, layout) not in columns:
                columns.append((name, layout))
            if (coll, b) not in cells:
                cells.append((coll, b))
    md = []
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    md.append(f"Made by `{a.command}` on {now}. hieragg's ratio per network profile and layout: "
              "hieragg ÷ the faster of tuned and HAN (one-node: ÷ tuned), t_max medians of the interleaved "
              "runs of each profile's own table below. **Bold**: within the profile's target "
              "(slow ≤ 1.0, fast ≤ 1.05 up to 64 KiB and ≤ 1.0 above, one-node ≤ 1.1).")
    md.append("")
    md.append("| collective | size | " + " | ".join(f"{n} {l}" for n, l in columns) + " |")
    md.append("|---|---|" + "---|" * len(columns))
    met = defaultdict(lambda: [0, 0])
    for coll, b in cells:
        cols = []
        for n, l in columns:
            v = dict(profiles)[n].get((l, coll, b))
            if v is None:
                cols.append("")
            elif isinstance(v, str):
                cols.append(f"**{v}**" if v != "ok" else "—")
            else:
                ok = v <= profile_target(n, b)
                met[(n, l)][1] += 1
                met[(n, l)][0] += ok
                cols.append(f"**{v:.2f}**" if ok else f"{v:.2f}")
        md.append(f"| {coll} | {size_label(b)} | " + " | ".join(cols) + " |")
    md.append("| **within target** | | " + " | ".join(f"{met[c][0]} of {met[c][1]}" for c in columns) + " |")
    table = "\n".join(md) + "\n"
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "profiles.md"), "w") as fh:
        fh.write(table)
    png = os.path.join(a.out, "profiles.png")
    if not a.no_plot:
        plot_profiles(profiles, columns, cells, png)
    print(table)
    if a.publish:
        publish(a, table, png)


def publish(a, table, png):
    """Rewrites the part of --publish's document between <!-- MARKER:begin --> and
    <!-- MARKER:end --> (--marker) with `table` (publish_block.py: a document with two pairs of
    the marker is refused, unchanged), and copies the plot to --publish-image."""
    try:
        replace_block(a.publish, a.marker, table, append_missing=True)
    except MarkerError as e:
        raise SystemExit(f"perf-report: {e}")
    if a.publish_image and not a.no_plot:
        os.makedirs(os.path.dirname(a.publish_image), exist_ok=True)
        shutil.copyfile(png, a.publish_image)
    print(f"perf-report: updated {a.publish}")


def plot_profiles(profiles, columns, cells, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_name = dict(profiles)
    fig, ax = plt.subplots(figsize=(max(8, 0.5 * len(cells) + 2), 4.2))
    width = 0.8 / max(1, len(columns))
    for k, (n, l) in enumerate(columns):
        xs, ys = [], []
        for i, (coll, b) in enumerate(cells):
            v = by_name[n].get((l, coll, b))
            if isinstance(v, float):
                xs.append(i + (k - (len(columns) - 1) / 2) * width)
                ys.append(v)
        ax.bar(xs, ys, width=width, label=f"{n} {l}")
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_yscale("log")
    from matplotlib.ticker import FormatStrFormatter
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(FormatStrFormatter("%g"))
    ax.tick_params(axis="y", which="both", labelsize=7)
    ax.set_ylabel("hieragg ÷ best other (log)", fontsize=8)
    ax.set_xticks(range(len(cells)))
    ax.set_xticklabels([f"{c} {size_label(b)}" for c, b in cells], rotation=70, ha="right", fontsize=7)
    ax.legend(fontsize=7, ncol=min(5, len(columns)))
    ax.set_title("hieragg per network profile: below 1 = faster than the best of tuned and HAN (one-node: tuned)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--combine", nargs="+", metavar="PROFILE=DIR",
                    help="side-by-side table of several profiles' performance.csv (perf-compare --profiles)")
    ap.add_argument("--raw")
    ap.add_argument("--out", required=True)
    ap.add_argument("--mode", default="")
    ap.add_argument("--command", default="bash bench/perf-compare.sh")
    ap.add_argument("--runs", type=int, default=0)
    ap.add_argument("--layouts", default="")
    ap.add_argument("--virtual", action="store_true")
    ap.add_argument("--link-bps", type=float, default=0, help="configured link rate, bit/s (0: use the ping-pong)")
    ap.add_argument("--no-plot", action="store_true", help="skip the PNG (no matplotlib needed)")
    ap.add_argument("--publish")
    ap.add_argument("--publish-image")
    ap.add_argument("--marker", default="perf-table", help="the <!-- MARKER:begin/end --> pair --publish rewrites")
    ap.add_argument("--stacks", default=",".join(STACKS), help="stacks compared (--one-node: hieragg,tuned)")
    a = ap.parse_args()
    if a.combine:
        combine(a)
        return
    if not a.raw:
        ap.error("--raw is required (or --combine)")
    STACKS[:] = [s for s in a.stacks.split(",") if s in LABEL]
    one_node = STACKS == ["hieragg", "tuned"]
    cells, info, order = parse(a.raw)
    layouts = [l for l in a.layouts.split(",") if l] or sorted(info)
    coll_order = []
    for c, _ in order:
        if c not in coll_order:
            coll_order.append(c)
    sizes = sorted({b for _, b in order if b > 0})

    rows = []  # one per layout, collective, size
    for layout in layouts:
        li = info[layout]
        bw = None if a.virtual else link_bytes_per_s(a.link_bps, li["bw"])
        for coll in coll_order:
            for b in sorted({bb for cc, bb in order if cc == coll}):
                r = {"layout": layout, "coll": coll, "bytes": b}
                for s in STACKS:
                    r[s] = summarize(cells[(layout, coll, b, s)])
                r["bound"] = bound_us(coll, b, li["nodes"] or 1, li["ranks"] or 1, bw)
                if r["bound"] is None and not a.virtual:
                    r["bound"] = latency_bound_us(coll, b, li["nodes"] or 1, li["ranks"] or 1,
                                                  statistics.median(li["lat"]) if li["lat"] else None,
                                                  statistics.median(li["local"]) if li["local"] else None)
                rows.append(r)

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "performance.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["layout", "collective", "bytes", "stack", "status", "runs_ok", "median_us", "min_us",
                    "max_us", "bound_us", "ratio_to_best_other"])
        for r in rows:
            best = [r[s][1] for s in STACKS[1:] if r[s][0] == "ok"]
            for s in STACKS:
                st, med, lo, hi = r[s]
                ratio = med / min(best) if (s == "hieragg" and st == "ok" and best) else None
                w.writerow([r["layout"], r["coll"], r["bytes"], s, st,
                            len(cells[(r["layout"], r["coll"], r["bytes"], s)]["t"]),
                            f"{med:.2f}" if med is not None else "", f"{lo:.2f}" if lo is not None else "",
                            f"{hi:.2f}" if hi is not None else "",
                            f"{r['bound']:.1f}" if r["bound"] else "", f"{ratio:.3f}" if ratio else ""])

    md = []
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    md.append(f"Made by `{a.command}` on {now}: {a.mode}; {a.runs} interleaved runs per stack.")
    md.append("")
    md.append("t_max = the slowest rank's mean time per call (as IMB reports it), median over the runs; "
              "± is the spread (max − min) / median. Every call's result is checked against a closed form: "
              "WRONG = a wrong result on some rank, CRASH = the job died in that cell (the benchmark went on "
              "without it), TIMEOUT = it hung. " +
              ("ratio = hieragg ÷ tuned (< 1: hieragg is faster; target ≤ 1.1 on one node). " if one_node else
               "ratio = hieragg ÷ the faster of tuned and HAN (< 1: hieragg is faster). ") +
              "bound = link-bandwidth bound (bcast, reduce m/B; allreduce 2(N−1)/N·m/B; "
              "allgather(v), gather, scatter (N−1)/N·P·m/B; reduce_scatter (N−1)/N·m/B; alltoall "
              "(N−1)/N²·P²·m/B). At 8 B, where latency dominates: the latency bound of bcast, "
              "allreduce and barrier = ⌈log2 N⌉ × the one-way latency between nodes + the intra-node "
              "cost (bcast: ⌈log2 P/N⌉, allreduce and barrier: 2⌈log2 P/N⌉ one-way latencies inside a "
              "node), both measured in the same jobs; issue 7's target is hieragg within 1.3× of it "
              "(≥ 77%). Back-to-back bcasts overlap, so a bcast can beat it.")
    for layout in layouts:
        li = info[layout]
        bw = link_bytes_per_s(a.link_bps, li["bw"])
        bw = bw / 1e6 if bw else None
        lat = statistics.median(li["lat"]) if li["lat"] else None
        m = re.match(r"(\d+)x(\d+)(rr|block)", layout)
        place = "round-robin (--map-by node)" if m and m.group(3) == "rr" else "block (--map-by slot)"
        md.append("")
        if one_node:
            md.append(f"### one node × {m.group(2) if m else '?'} ranks")
        else:
            md.append(f"### {m.group(1) if m else '?'} nodes × {m.group(2) if m else '?'} ranks, {place}")
        md.append("")
        if bw and not a.virtual:
            src = (f"TCP goodput of the configured {a.link_bps / 1e9:g} Gbit/s link at MTU 1500"
                   if a.link_bps else "best 4 MiB ping-pong")
            md.append(f"B = {bw:.1f} MB/s ({src}). Measured in the same jobs, rank 0 ↔ a rank on another node: "
                      f"4 MiB ping-pong {statistics.median(li['bw']):.0f} MB/s (median; best {max(li['bw']):.0f}), "
                      f"one-way latency {lat:.0f} µs (8 B, median)" +
                      (f"; inside a node {statistics.median(li['local']):.1f} µs" if li["local"] else "") +
                      (f"; both directions at once {statistics.median(li['duplex']):.0f} MB/s each way (median; "
                       f"allgather(v) and alltoall load both)" if li["duplex"] else "") + ".")
            md.append("")
        md.append("| collective | size | " + " | ".join(LABEL[s] for s in STACKS) + " | ratio | bound | bound ÷ hieragg |")
        md.append("|---|---|" + "---|" * len(STACKS) + "---|---|---|")
        for r in rows:
            if r["layout"] != layout:
                continue
            cols = []
            for s in STACKS:
                st, med, lo, hi = r[s]
                if st != "ok":
                    cols.append(f"**{st}**")
                else:
                    spread = (hi - lo) / med * 100 if med else 0
                    cols.append(f"{time_label(med)} ±{spread:.0f}%")
            best = [r[s][1] for s in STACKS[1:] if r[s][0] == "ok"]
            h = r["hieragg"]
            ratio = f"{h[1] / min(best):.2f}" if h[0] == "ok" and best else "—"
            if h[0] == "ok" and best and h[1] / min(best) <= (1.1 if one_node else 1.0):
                ratio = f"**{ratio}**"
            bound = time_label(r["bound"]) if r["bound"] else ""
            share = f"{r['bound'] / h[1] * 100:.0f}%" if r["bound"] and h[0] == "ok" else ""
            md.append(f"| {r['coll']} | {size_label(r['bytes'])} | {' | '.join(cols)} | {ratio} | {bound} | {share} |")
    table = "\n".join(md) + "\n"
    with open(os.path.join(a.out, "performance.md"), "w") as fh:
        fh.write(table)
    plans = parse_plans(a.raw)
    if plans:
        with open(os.path.join(a.out, "plans.md"), "w") as fh:
            fh.write(plans_table(plans, order))
        print(f"perf-report: wrote {a.out}/plans.md (hieragg's time per plan)")

    png = os.path.join(a.out, "performance.png")
    if not a.no_plot:
        plot(rows, layouts, sizes, png, a.mode)
    print(table)
    print(f"perf-report: wrote {a.out}/performance.md, performance.csv" + ("" if a.no_plot else ", performance.png"))

    if a.publish:
        publish(a, table, png)


def plot(rows, layouts, sizes, path, mode):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"hieragg": "#1f77b4", "tuned": "#ff7f0e", "han": "#2ca02c"}
    fig, axes = plt.subplots(len(layouts), max(1, len(sizes)), figsize=(5.2 * max(1, len(sizes)), 3.8 * len(layouts)),
                             squeeze=False)
    for i, layout in enumerate(layouts):
        for j, size in enumerate(sizes):
            ax = axes[i][j]
            sel = [r for r in rows if r["layout"] == layout and r["bytes"] == size]
            sel = [r for r in rows if r["layout"] == layout and r["coll"] == "barrier"] + sel if j == 0 else sel
            xs = range(len(sel))
            for k, s in enumerate(STACKS):
                x = [xi + (k - (len(STACKS) - 1) / 2) * 0.27 for xi in xs]
                med = [r[s][1] if r[s][0] == "ok" else 0 for r in sel]
                err_lo = [r[s][1] - r[s][2] if r[s][0] == "ok" else 0 for r in sel]
                err_hi = [r[s][3] - r[s][1] if r[s][0] == "ok" else 0 for r in sel]
                ax.bar(x, [v / 1000 for v in med], width=0.27, color=colors[s], label=LABEL[s],
                       yerr=[[v / 1000 for v in err_lo], [v / 1000 for v in err_hi]], capsize=1.5, error_kw={"lw": 0.6})
                for xi, r in zip(x, sel):
                    if r[s][0] != "ok":
                        ax.text(xi, 0.02, {"WRONG": "W", "CRASH": "X", "TIMEOUT": "T"}.get(r[s][0], "?"),
                                transform=ax.get_xaxis_transform(), ha="center", color="red", fontsize=8,
                                fontweight="bold")
            for xi, r in zip(xs, sel):
                if r["bound"]:
                    ax.hlines(r["bound"] / 1000, xi - 0.42, xi + 0.42, colors="black", linestyles="--", lw=0.9)
            ax.set_xticks(list(xs))
            ax.set_xticklabels([r["coll"].replace("_inplace", "\n(in place)") for r in sel], rotation=60,
                               ha="right", fontsize=7)
            ax.set_yscale("log")
            ax.set_ylabel("t_max, ms (log)", fontsize=8)
            ax.set_title(f"{layout}, {size_label(size)}" + (" (+ barrier)" if j == 0 else ""), fontsize=9)
            ax.tick_params(axis="y", labelsize=7)
            if i == 0 and j == 0:
                ax.legend(fontsize=7, loc="upper center", ncol=3, framealpha=0.9)
    fig.suptitle(" vs ".join(LABEL[s] for s in STACKS) + " — median t_max, bars: min..max over runs; dashes: bound (link bandwidth; 8 B: latency); "
                 "X crash, W wrong result\n" + mode, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
