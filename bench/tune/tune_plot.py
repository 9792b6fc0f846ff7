#!/usr/bin/env python3
"""hieragg-tune --plot: per collective, measured times and fitted curves of each
protocol (log-log) with the selection's crossover sizes, as DIR/<coll>.png.
Optional: needs python3-matplotlib; without it, says so and writes nothing."""
import json
import math
import os
import sys


def time_us(fit, nbytes, ranks, subspaces):
    """The component's PerformanceFunction (coll_hier/src/PerformanceFunction.cpp)."""
    log = fit.get("log_space", False)
    x = math.log(max(nbytes, 1.0)) if log else nbytes
    y = sum(c * x ** i for i, c in enumerate(fit["coeffs"]))
    p = math.log(max(ranks, 1)) if log else ranks
    s = math.log(max(subspaces, 1)) if log else subspaces
    y += sum(c * p ** (i + 1) for i, c in enumerate(fit.get("ranks_coeffs", [])))
    y += sum(c * s ** (i + 1) for i, c in enumerate(fit.get("subspaces_coeffs", [])))
    return math.exp(y) if log else max(y, 0.0)


def label(c):
    s = c["algorithm"]
    if "k" in c:
        s += " k=%d" % c["k"]
    if "segment" in c:
        s += " seg=%d" % c["segment"]
    return s


def main():
    if len(sys.argv) != 3:
        print("usage: tune_plot.py RULES.json OUTDIR", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("hieragg-tune --plot: python3-matplotlib is not installed (apt-get install python3-matplotlib); "
              "the rules file and the crossover sizes above are complete without the pictures")
        return 0
    rules = json.load(open(sys.argv[1]))
    os.makedirs(sys.argv[2], exist_ok=True)
    for name, sets in rules["collectives"].items():
        sets = sets if isinstance(sets, list) else [sets]
        for coll in sets:
            plot(plt, name, coll, len(sets) > 1)
    return 0


def plot(plt, name, coll, several):
    lo, hi = coll["valid"]["bytes"]
    ranks = coll["valid"]["ranks"][0]
    subspaces = coll["valid"]["subspaces"][0]
    if hi <= 0:
        return  # barrier: no size axis
    fig, ax = plt.subplots(figsize=(8, 5))
    grid = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    for c in coll["candidates"]:
        m = c.get("measured", {})
        line, = ax.plot(grid, [time_us(c["fit"], b, ranks, subspaces) for b in grid], label=label(c))
        if m:
            ax.plot(m["bytes"], m["us"], "o", color=line.get_color(), markersize=4)
    for r in coll.get("selected", [])[1:]:
        ax.axvline(r["from"], color="grey", linestyle=":", linewidth=1)
        ax.text(r["from"], 0.02, " " + r["protocol"], rotation=90, fontsize=7, va="bottom", color="grey",
                transform=ax.get_xaxis_transform())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("message size [bytes]")
    ax.set_ylabel("time [us] (slowest rank)")
    ax.set_title("%s on %d ranks, %d subspaces: measured (dots) and fitted (lines)" % (name, ranks, subspaces))
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    path = os.path.join(sys.argv[2], name + ("-%dsub" % subspaces if several else "") + ".png")
    fig.savefig(path, dpi=90, bbox_inches="tight")
    plt.close(fig)
    print("hieragg-tune --plot: wrote", path)


if __name__ == "__main__":
    sys.exit(main())
