#!/usr/bin/env bash
# Multi-node check on emulated nodes (network namespaces, shaped links; see
# bench/emucluster/README.md): 2 nodes x 4 ranks, round-robin placement
# (--map-by node), default coll_hieragg_split=node, hieragg vs Open MPI's default
# stack in the same job. Root only. Usage: bench/emucluster-compare.sh [compare args]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
emu=${EMU_DIR:-$here/bench/emucluster}
NODES=${NODES:-2}
PER_NODE=${PER_NODE:-4}
command -v iptables >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iptables >/dev/null
[ -x "$here/build/bench/hieragg-compare" ] || bash "$here/scripts/build.sh"
# The component is loaded from the build tree (every "node" sees this file system); nothing is installed.
pkglib=$(ompi_info --path pkglibdir | sed 's/^.*Pkglibdir: *//')
# One user of the emulated cluster at a time: hold the lock from setup to teardown.
exec {lockfd}>/tmp/emucluster.lock
flock "$lockfd"
"$emu/emu-setup.sh" -n "$NODES" -d "${DELAY:-50us}" -r "${RATE:-1gbit}"
trap '"$emu/emu-teardown.sh" >/dev/null 2>&1 || true' EXIT
hosts=$(for ((i = 0; i < NODES; ++i)); do printf 'node%d:%d,' "$i" "$PER_NODE"; done)
"$emu/emu-mpirun" -np $((NODES * PER_NODE)) --host "${hosts%,}" --map-by node --bind-to none \
  --mca mpi_yield_when_idle 1 --mca mca_base_component_path "$here/build/src/ompi:$pkglib" \
  --mca coll_hieragg_priority 100 --mca coll_hieragg_verbose 1 \
  "$here/build/bench/hieragg-compare" "$@"
