#!/usr/bin/env bash
# Type II (switch) tree vs the type I hierarchical tree on emulated nodes: 4 nodes x 2
# ranks under a topology file that puts node0,node1 under leaf l0 and node2,node3 under
# l1 (the emulated links are one bridge: the file only shapes the decomposition). Calibrates
# once (hieragg-calibrate), then runs hieragg-compare with bcast/reduce/allreduce forced
# to type2 and to hier_knomial, interleaved ROUNDS times, coll_hieragg_verbose=2 (pred=).
# Everything runs under flock /tmp/emucluster.lock. Root only. Output: $OUT.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
emu=${EMU_DIR:-$here/bench/emucluster}
OUT=${OUT:-/tmp/hieragg-type2}
ITERS=${ITERS:-20}
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-8,65536}
mkdir -p "$OUT"
cat >"$OUT/topology.conf" <<'TOPO'
SwitchName=l0 Nodes=node[0-1]
SwitchName=l1 Nodes=node[2-3]
SwitchName=top Switches=l[0-1]
TOPO
pkglib=$(ompi_info --path pkglibdir | sed 's/.*: *//')
comp="$here/build/src/ompi:$pkglib"
common=(--bind-to none --mca mpi_yield_when_idle 1 --mca mca_base_component_path "$comp")
exec 9>/tmp/emucluster.lock
flock 9
trap '"$emu/emu-teardown.sh" >/dev/null 2>&1 || true' EXIT
"$emu/emu-setup.sh" -n 4 -s 2 -d "${DELAY:-50us}" -r "${RATE:-1gbit}" >"$OUT/setup.log" 2>&1
"$emu/emu-mpirun" -np 4 --host node0:2,node1:2 "${common[@]}" "$here/build/bench/hieragg-calibrate" \
  >"$OUT/calib.conf" 2>"$OUT/calib.err"
mca=()
while read -r name _ value; do mca+=(--mca "$name" "$value"); done < <(grep '^coll_hieragg_cost_' "$OUT/calib.conf")
for ((r = 1; r <= ROUNDS; ++r)); do
  for algo in type2 hier_knomial; do
    "$emu/emu-mpirun" -np 8 --host node0:2,node1:2,node2:2,node3:2 --map-by slot "${common[@]}" \
      --mca coll_hieragg_priority 100 --mca coll_hieragg_verbose 2 "${mca[@]}" \
      --mca coll_hieragg_split "node,topology:$OUT/topology.conf" \
      --mca coll_hieragg_bcast_algorithm $algo --mca coll_hieragg_reduce_algorithm $algo \
      --mca coll_hieragg_allreduce_algorithm $algo \
      "$here/build/bench/hieragg-compare" --sizes "$SIZES" --colls bcast,reduce,allreduce --iters "$ITERS" \
      >"$OUT/$algo.$r.log" 2>&1
  done
done
echo "written to $OUT"
