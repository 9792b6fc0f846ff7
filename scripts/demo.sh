#!/usr/bin/env bash
# The main job: builds hieragg and runs the project benchmark
# (bench/perf-compare.sh --quick) on 2 nodes x 4 ranks, round-robin: hieragg
# (loaded from the build tree, nothing installed) against Open MPI's tuned and
# HAN, every collective at 8 B, 64 KiB and 4 MiB, results checked. First it
# shows how hieragg decomposed MPI_COMM_WORLD and which algorithm it chose for
# each call. As root the nodes are emulated (network namespaces, 50 us / 1 Gbit/s
# links, bench/emucluster); elsewhere the 8 ranks run on this one machine and
# hieragg is told where the node boundaries would be (virtual nodes).
# Takes 2-4 minutes. Arguments go to bench/perf-compare.sh (e.g. --layouts 4x2block).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
out=${OUT:-out/demo}
layout=2x4rr
for ((i = 1; i <= $#; ++i)); do [ "${!i}" = --layouts ] && j=$((i + 1)) && layout=${!j%%,*}; done
mkdir -p "$(dirname "$out")"
if [ "$(id -u)" != 0 ]; then
  echo "demo: NOTE: not root, so no emulated nodes: the ranks run on this one machine as VIRTUAL nodes" >&2
fi
bash bench/perf-compare.sh --quick --layouts "$layout" --show-decisions --out "$out" "$@" | tee "$out.table.txt" >/dev/null

verbose=$out/raw/$layout.decisions.log.verbose
echo
echo "== how hieragg decomposed MPI_COMM_WORLD (coll_hieragg_verbose=1)"
# The world communicator's block: its header line and the indented level lines after it.
awk '/hieragg: communicator of .* \(world rank 0 is rank 0\)/ && !shown {p=1; shown=1; sub(/^\[[^]]*\] /, ""); print; next}
     p && /^  / {print; next} {p=0}' "$verbose"
echo
echo "== the algorithm hieragg chose per collective and size (coll_hieragg_verbose=2)"
# Each "BEGIN coll bytes" of hieragg-bench is followed by hieragg's line for that call.
awk '$1 == "BEGIN" {cur = sprintf("%-18s %8s B", $2, $3); said = 0; next}
     /hieragg: [a-z_]+ on [0-9]+ ranks: / && cur != "" && !said {sub(/^.*ranks: /, ""); print "  " cur ": " $0; said = 1}' "$verbose"
echo
echo "== hieragg vs tuned vs HAN ($layout; t_max median over interleaved runs)"
cat "$out.table.txt"
echo "Plot: $out/performance.png   CSV: $out/performance.csv   Full benchmark: bash bench/perf-compare.sh"
