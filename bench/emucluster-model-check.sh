#!/usr/bin/env bash
# The selection's predictions next to measured times on emulated nodes (see
# bench/emucluster/README.md): calibrate on 2 nodes x 2 ranks with
# hieragg-calibrate, then run hieragg-compare with the calibrated parameters and
# coll_hieragg_verbose=2 (which prints each plan's pred=) on 2 nodes x 4 ranks
# round-robin and on 4 nodes x 2 ranks. The component is loaded from the build
# tree. Everything runs under flock /tmp/emucluster.lock (the cluster's namespace
# names are global). Root only. Output: $OUT (default /tmp/hieragg-model-check).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
emu=${EMU_DIR:-$here/bench/emucluster}
OUT=${OUT:-/tmp/hieragg-model-check}
ITERS=${ITERS:-10}
SIZES=${SIZES:-8,65536,4194304}
mkdir -p "$OUT"
pkglib=$(ompi_info --path pkglibdir | sed 's/.*: *//')
comp="$here/build/src/ompi:$pkglib"
common=(--bind-to none --mca mpi_yield_when_idle 1 --mca mca_base_component_path "$comp")
exec 9>/tmp/emucluster.lock
flock 9
trap '"$emu/emu-teardown.sh" >/dev/null 2>&1 || true' EXIT

"$emu/emu-setup.sh" -n 2 -s 4 -d "${DELAY:-50us}" -r "${RATE:-1gbit}" >"$OUT/setup2.log" 2>&1
"$emu/emu-mpirun" -np 4 --host node0:2,node1:2 "${common[@]}" "$here/build/bench/hieragg-calibrate" \
  >"$OUT/calib.conf" 2>"$OUT/calib.err"
mca=()
while read -r name _ value; do mca+=(--mca "$name" "$value"); done < <(grep '^coll_hieragg_cost_' "$OUT/calib.conf")

run() {  # name nodes per-node mapping
  local hosts
  hosts=$(for ((i = 0; i < $2; ++i)); do printf 'node%d:%d,' "$i" "$3"; done)
  "$emu/emu-mpirun" -np $(($2 * $3)) --host "${hosts%,}" --map-by "$4" "${common[@]}" \
    --mca coll_hieragg_priority 100 --mca coll_hieragg_verbose 2 "${mca[@]}" \
    "$here/build/bench/hieragg-compare" --sizes "$SIZES" --colls bcast,reduce,allreduce,barrier --iters "$ITERS" \
    >"$OUT/$1.log" 2>&1
}
run 2x4-roundrobin 2 4 node
"$emu/emu-setup.sh" -n 4 -s 2 -d "${DELAY:-50us}" -r "${RATE:-1gbit}" >"$OUT/setup4.log" 2>&1
run 4x2 4 2 slot
echo "written to $OUT"
