#!/usr/bin/env bash
# Offloaded vs point-to-point leader stages on emulated nodes (network namespaces, shaped
# links; bench/emucluster/README.md): NODES nodes x PER_NODE ranks, split=node,
# hieragg-leader-stage run alternately with coll_hieragg_offload=ofi (tcp;ofi_rxm on the
# namespaces' emu0 links) and =off, REPEAT jobs each; prints medians and ratios like
# bench/offload-compare.sh. The whole run holds /tmp/emucluster.lock (shared tool).
# Loads the component from the build tree (nothing is installed). Root only.
# Both modes run with coll_hieragg_reproducible=none: the benchmark's double SUM allreduce
# is offloaded only then (a provider does not fix the combination order; docs/offload.md).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
emu=${EMU_DIR:-$here/bench/emucluster}
NODES=${NODES:-2} PER_NODE=${PER_NODE:-2} REPEAT=${REPEAT:-3}
pkglib=$(ompi_info --path pkglibdir | sed 's/^.*Pkglibdir: *//')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
exec 9>/tmp/emucluster.lock
flock 9
"$emu/emu-setup.sh" -n "$NODES" -d "${DELAY:-50us}" -r "${RATE:-1gbit}" >/dev/null
trap '"$emu/emu-teardown.sh" >/dev/null 2>&1 || true; rm -f "$out"' EXIT
hosts=$(for ((i = 0; i < NODES; ++i)); do printf 'node%d:%d,' "$i" "$PER_NODE"; done)
for i in $(seq "$REPEAT"); do
  for mode in ofi off; do
    FI_TCP_IFACE=emu0 "$emu/emu-mpirun" -np $((NODES * PER_NODE)) --host "${hosts%,}" --bind-to none \
      -x FI_TCP_IFACE --mca mpi_yield_when_idle 1 \
      --mca mca_base_component_path "$here/build/src/ompi:$pkglib" --mca coll hieragg \
      --mca coll_hieragg_offload "$mode" --mca coll_hieragg_ofi_provider "tcp;ofi_rxm" \
      --mca coll_hieragg_reproducible none \
      "$here/build/bench/hieragg-leader-stage" 5 "$mode" >>"$out"
  done
done
echo "# emucluster: $NODES nodes x $PER_NODE ranks, delay ${DELAY:-50us}, rate ${RATE:-1gbit}; $REPEAT interleaved jobs per mode"
printf "%-10s %9s %10s %10s %7s\n" coll bytes ofi_us p2p_us ratio
python3 - "$out" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) != 4 or parts[0] not in ("ofi", "off"):
        continue
    mode, coll, size, us = parts
    runs.setdefault((coll, int(size)), {}).setdefault(mode, []).append(float(us))
order = {"barrier": 0, "bcast": 1, "allreduce": 2}
for (coll, size), m in sorted(runs.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
    o, p = statistics.median(m["ofi"]), statistics.median(m["off"])
    print(f"{coll:<10} {size:>9} {o:>10.1f} {p:>10.1f} {o / p:>7.2f}")
PY
