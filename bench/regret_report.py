#!/usr/bin/env python3
"""The selection's regret and the model's accuracy from the raw logs of
`bench/perf-compare.sh --regret`: per layout and cell, the plan hieragg's own choice (the
`hieragg` stack, "auto") ran, its median time, the model's prediction for it (pred= of the
coll_hieragg_verbose=2 plan line) and prediction / measurement, the fastest registry row
forced by MCA in the same interleaved runs (stacks row1, row2, ...: RAW/forced-rows.txt says
which row each forces per collective) and the regret = auto's median / that row's median.
A forced run whose plan line does not say `{from coll_hieragg_<coll>_algorithm}` (the row was
refused at run time and the cost model's choice ran) does not count for its row. Writes
OUT/regret.md and OUT/regret.csv and prints the summary per layout: median and worst regret,
cells within 1.2, and the share of cells whose prediction is within 25% of the measurement
(issue 18's targets: median <= 1.05, every cell <= 1.2, >= 80% within 25%)."""
import argparse
import csv
import datetime
import os
import re
import statistics
from collections import defaultdict

from perf_report import cells_with_plans, publish, size_label, time_label

LOG_RE = re.compile(r"(.+)\.(hieragg|row\d+)\.run(\d+)\.log$")
PLAN_RE = re.compile(r"hieragg: ([a-z_]+) on \d+ ranks: (.*?) \{(from [^}]*|built-in choice)\}(?: \[(\d+) B(?:, pred=([\d.]+) us)?\])?")


def time_text(us):
    return "–" if us is None else time_label(us)


def read_runs(raw):
    """{(layout, coll, bytes): {stack: [(us, plan, forced, pred_us or None), ...]}}. Each CELL line
    takes the next plan line of its collective and size in the same log (perf_report.cells_with_plans)."""
    runs = defaultdict(lambda: defaultdict(list))
    for name in sorted(os.listdir(raw)):
        m = LOG_RE.match(name)
        if not m:
            continue
        layout, stack = m.group(1), m.group(2)
        lines = open(os.path.join(raw, name), errors="replace").read().splitlines()
        plans = defaultdict(list)
        for line in lines:
            p = PLAN_RE.search(line)
            if p:
                key = (p.group(1), int(p.group(4)) if p.group(4) else None)
                forced = p.group(3).startswith("from coll_hieragg_")
                plans[key].append((p.group(2), forced, float(p.group(5)) if p.group(5) else None))
        for coll, nbytes, us, (plan, forced, pred) in cells_with_plans(lines, plans, ("?", False, None)):
            runs[(layout, coll, nbytes)][stack].append((us, plan, forced, pred))
    return runs


def read_forced(raw):
    """{(layout, stack, coll): row name} from RAW/forced-rows.txt."""
    out = {}
    path = os.path.join(raw, "forced-rows.txt")
    if os.path.exists(path):
        for line in open(path):
            f = line.split()
            if len(f) == 4:
                out[(f[0], f[1], f[2])] = f[3]
    return out


def cell_rows(runs, forced):
    rows = []
    for (layout, coll, nbytes), by_stack in sorted(runs.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
        auto = by_stack.get("hieragg", [])
        if not auto:
            continue
        auto_us = statistics.median(t for t, _, _, _ in auto)
        plans = sorted({p for _, p, _, _ in auto})
        preds = [p for _, _, _, p in auto if p is not None]
        pred = statistics.median(preds) if preds else None
        best = None
        for stack, entries in by_stack.items():
            if stack == "hieragg":
                continue
            ok = [t for t, _, f, _ in entries if f]
            if not ok:
                continue
            med = statistics.median(ok)
            if best is None or med < best[1]:
                best = (forced.get((layout, stack, coll), stack), med, len(ok))
        rows.append({
            "layout": layout, "coll": coll, "bytes": nbytes, "auto_plan": " / ".join(plans),
            "auto_us": auto_us, "auto_runs": len(auto), "pred_us": pred,
            "pred_ratio": pred / auto_us if pred is not None and auto_us > 0 else None,
            "best_row": best[0] if best else None, "best_us": best[1] if best else None,
            "regret": auto_us / best[1] if best and best[1] > 0 else None,
        })
    return rows


def summary(rows):
    out = []
    for layout in sorted({r["layout"] for r in rows}):
        mine = [r for r in rows if r["layout"] == layout]
        reg = [r["regret"] for r in mine if r["regret"] is not None]
        pr = [r["pred_ratio"] for r in mine if r["pred_ratio"] is not None]
        within = sum(1 for x in pr if abs(x - 1) <= 0.25)
        line = {"layout": layout, "cells": len(mine)}
        if reg:
            line.update(median=statistics.median(reg), worst=max(reg), ok=sum(1 for x in reg if x <= 1.2), n=len(reg))
        line.update(pred_within=within, pred_n=len(pr))
        out.append(line)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--raw", required=True, help="perf-compare's RAW directory")
    ap.add_argument("--out", required=True, help="where regret.md and regret.csv go")
    ap.add_argument("--command", default="bench/perf-compare.sh --regret")
    ap.add_argument("--publish", help="also rewrite this document's <!-- MARKER:begin/end --> section")
    ap.add_argument("--marker", default="regret-slow", help="the marker pair --publish rewrites")
    a = ap.parse_args()
    rows = cell_rows(read_runs(a.raw), read_forced(a.raw))
    if not rows:
        print("regret-report: no hieragg cell with plan lines in", a.raw)
        return 1
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "regret.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    md = [f"Made by `{a.command}` on {now}. Regret = auto's median ÷ the median of the fastest registry row "
          "forced by MCA in the same interleaved runs (below 1: auto beat every forced row, within their noise); "
          "pred ÷ meas = the model's prediction for auto's plan ÷ its measured median.", ""]
    for s in summary(rows):
        txt = f"- **{s['layout']}**: {s['cells']} cells"
        if "median" in s:
            txt += (f"; regret median {s['median']:.2f}, worst {s['worst']:.2f}, "
                    f"{s['ok']} of {s['n']} cells ≤ 1.2")
        if s["pred_n"]:
            txt += f"; prediction within 25% in {s['pred_within']} of {s['pred_n']} cells"
        md.append(txt)
        print("regret-report:", txt[2:].replace("**", ""))
    md.append("")
    md.append("| layout | collective | size | auto's plan | auto | pred | pred ÷ meas | fastest forced row | its time | regret |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = f"{r['pred_ratio']:.2f}" if r["pred_ratio"] is not None else "–"
        regret = f"**{r['regret']:.2f}**" if r["regret"] is not None and r["regret"] > 1.2 else (
            f"{r['regret']:.2f}" if r["regret"] is not None else "–")
        md.append(f"| {r['layout']} | {r['coll']} | {size_label(r['bytes'])} | `{r['auto_plan']}` | "
                  f"{time_text(r['auto_us'])} | {time_text(r['pred_us'])} | {ratio} | "
                  f"{r['best_row'] or '–'} | {time_text(r['best_us'])} | {regret} |")
    with open(os.path.join(a.out, "regret.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    print(f"regret-report: wrote {a.out}/regret.md and regret.csv")
    if a.publish:
        publish(argparse.Namespace(publish=a.publish, marker=a.marker, publish_image=None, no_plot=True),
                "\n".join(md) + "\n", None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
