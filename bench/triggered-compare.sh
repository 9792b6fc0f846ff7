#!/usr/bin/env bash
# Triggered chain bcast among the leaders (coll_hieragg_offload=ofi with the sockets
# provider: FI_TRIGGER, docs/offload.md) against the point-to-point leader bcast
# (coll_hieragg_offload=off), bcast only, at SIZES. Jobs alternate trig / trig-manual
# (coll_hieragg_ofi_manual_progress=true) / off, REPEAT times; prints per size the median
# of the job medians (hieragg-leader-stage: slowest rank's mean per call) and the ratios.
#   one machine:   bench/triggered-compare.sh            (NP=6 SPLIT=virtual:2: 3 leaders)
#   emulated nodes: EMU=1 NODES=3 PER_NODE=1 bench/triggered-compare.sh   (root; holds
#                   /tmp/emucluster.lock for the whole run, tears the cluster down)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
NP=${NP:-6} SPLIT=${SPLIT:-virtual:2} REPEAT=${REPEAT:-3} SIZES=${SIZES:-8,65536,4194304}
ROUNDS=${ROUNDS:-5}
pkglib=$(ompi_info --path pkglibdir | sed 's/^.*Pkglibdir: *//')
bin=$here/build/bench/hieragg-leader-stage
out=$(mktemp)
trap 'rm -f "$out"' EXIT
common=(--bind-to none --mca mpi_yield_when_idle 1 --mca mca_base_component_path "$here/build/src/ompi:$pkglib"
        --mca coll hieragg --mca coll_hieragg_ofi_provider sockets)
run() {  # label, extra MCA arguments...
  local label=$1
  shift
  if [ "${EMU:-0}" = 1 ]; then
    FI_SOCKETS_IFACE=emu0 "$emu/emu-mpirun" -np $((NODES * PER_NODE)) --host "${hosts%,}" -x FI_SOCKETS_IFACE \
      "${common[@]}" "$@" "$bin" "$ROUNDS" "$label" "$SIZES" bcast >>"$out"
  else
    FI_SOCKETS_IFACE=lo mpirun --allow-run-as-root --oversubscribe -np "$NP" -x FI_SOCKETS_IFACE \
      --mca coll_hieragg_split "$SPLIT" "${common[@]}" "$@" "$bin" "$ROUNDS" "$label" "$SIZES" bcast >>"$out"
  fi
}
where="one machine, np=$NP split=$SPLIT"
if [ "${EMU:-0}" = 1 ]; then
  emu=${EMU_DIR:-$here/bench/emucluster}
  NODES=${NODES:-3} PER_NODE=${PER_NODE:-1}
  exec 9>/tmp/emucluster.lock
  flock 9
  "$emu/emu-setup.sh" -n "$NODES" -d "${DELAY:-50us}" -r "${RATE:-1gbit}" >/dev/null
  trap '"$emu/emu-teardown.sh" >/dev/null 2>&1 || true; rm -f "$out"' EXIT
  hosts=$(for ((i = 0; i < NODES; ++i)); do printf 'node%d:%d,' "$i" "$PER_NODE"; done)
  where="emucluster $NODES nodes x $PER_NODE, delay ${DELAY:-50us}, rate ${RATE:-1gbit}"
fi
for i in $(seq "$REPEAT"); do
  run trig --mca coll_hieragg_offload ofi
  run trigm --mca coll_hieragg_offload ofi --mca coll_hieragg_ofi_manual_progress true
  run off --mca coll_hieragg_offload off
done
echo "# $where; $REPEAT interleaved jobs per mode; bcast us per call (median of job medians)"
printf "%9s %10s %10s %10s %8s %8s\n" bytes trig_us trigm_us p2p_us trig/p2p trigm/p2p
python3 - "$out" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) != 4 or parts[0] not in ("trig", "trigm", "off"):
        continue
    mode, coll, size, us = parts
    runs.setdefault(int(size), {}).setdefault(mode, []).append(float(us))
for size, m in sorted(runs.items()):
    t, tm, p = (statistics.median(m[k]) for k in ("trig", "trigm", "off"))
    print(f"{size:>9} {t:>10.1f} {tm:>10.1f} {p:>10.1f} {t / p:>8.2f} {tm / p:>8.2f}")
PY
