#!/bin/bash
# Offloaded vs point-to-point leader stages on one machine (docs/offload.md): runs
# hieragg-leader-stage alternately with coll_hieragg_offload=ofi and =off (the switch is per
# job), REPEAT times each, and prints per collective and size the median of the job
# medians and their ratio (ofi / p2p; below 1: offload faster).
# usage: bench/offload-compare.sh [NP] [SPLIT] [REPEAT]   (build first: scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
np=${1:-4} split=${2:-virtual:2} repeat=${3:-3}
bin=build/bench/hieragg-leader-stage
pkglib=$(ompi_info --path pkglibdir | sed 's/^.*Pkglibdir: *//')
export FI_TCP_IFACE=lo
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for i in $(seq "$repeat"); do
  for mode in ofi off; do
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" --mca mpi_yield_when_idle 1 \
      --mca mca_base_component_path "build/src/ompi:$pkglib" --mca coll hieragg \
      --mca coll_hieragg_split "$split" --mca coll_hieragg_offload "$mode" \
      --mca coll_hieragg_ofi_provider "tcp;ofi_rxm" "$bin" 5 "$mode" >>"$out"
  done
done
echo "# np=$np split=$split, $repeat interleaved jobs per mode; us per call (median of job medians)"
printf "%-10s %9s %10s %10s %7s\n" coll bytes ofi_us p2p_us ratio
python3 - "$out" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    mode, coll, size, us = line.split()
    runs.setdefault((coll, int(size)), {}).setdefault(mode, []).append(float(us))
order = {"barrier": 0, "bcast": 1, "allreduce": 2}
for (coll, size), m in sorted(runs.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
    o, p = statistics.median(m["ofi"]), statistics.median(m["off"])
    print(f"{coll:<10} {size:>9} {o:>10.1f} {p:>10.1f} {o / p:>7.2f}")
PY
