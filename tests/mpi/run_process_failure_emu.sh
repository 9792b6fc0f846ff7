#!/usr/bin/env bash
# Process failure under ULFM on emulated nodes (docs/fault-tolerance.md): the emulated
# cluster (bench/emucluster) is set up on the host, prterun and the prted daemons run in
# the Debian 13 chroot of scripts/openmpi5.sh (which must have built this tree with
# Open MPI 5 + ULFM: hieragg_process_failure) and enter each node's namespaces with
# nsenter, as bench/openmpi5-emucluster.sh does. Runs RUNS jobs of
# tests/mpi/run_process_failure.sh, cycling the modes (exclusive, beside) and the
# failure (one rank, or with NODE_DIES=1 every rank of the victim's node), each with a
# fresh seed, and prints one line per run and the count that passed.
# Root only; holds /tmp/emucluster.lock throughout and tears the cluster down on exit.
# env: NODES (3) PER_NODE (2) RUNS (8) FAMILY (loop) CALLS (blocking) SPLIT (node)
#      NODE_DIES (alternate: every other run kills a whole node) DELAY RATE KEEP_LOGS=DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
emu=${EMU_DIR:-$src/bench/emucluster}
root=${HIERAGG_CHROOT:-/var/cache/hieragg/trixie}
NODES=${NODES:-3} PER_NODE=${PER_NODE:-2} RUNS=${RUNS:-8}
FAMILY=${FAMILY:-loop} CALLS=${CALLS:-blocking} SPLIT=${SPLIT:-node} NODE_DIES=${NODE_DIES:-alternate}
state=/run/emucluster net=10.77.0
logs=${KEEP_LOGS:-$(mktemp -d)}
mkdir -p "$logs"

exec 8>/tmp/emucluster.lock
flock 8
EMU_MEASURE=0 "$emu/emu-setup.sh" -n "$NODES" -d "${DELAY:-50us}" -r "${RATE:-1gbit}" -s "$PER_NODE" >/dev/null
trap '"$emu/emu-teardown.sh" >/dev/null 2>&1 || true; [ -n "${KEEP_LOGS:-}" ] || rm -rf "$logs"' EXIT

# prterun's ssh agent inside the chroot: the node's namespaces instead of ssh.
install -D -m 755 "$emu/chroot-emu-agent" "$root/usr/local/bin/hieragg-emu-agent"

hosts=$(for ((i = 0; i < NODES; ++i)); do printf 'node%d:%d,' "$i" "$PER_NODE"; done)
build=/build$src
export HIERAGG_CHROOT_BINDS="/run/netns $state $logs"
# One chroot session for all runs (the chroot is shared and locked per use).
# shellcheck disable=SC2016
loop='pk=$(ompi_info --path pkglibdir | sed "s/.*: *//"); export PMIX_MCA_mca_base_component_show_load_errors=0
pass=0
for ((r = 0; r < '"$RUNS"'; ++r)); do
  mode=exclusive; ((r % 2)) && mode=beside
  node=; if [ '"$NODE_DIES"' = 1 ] || { [ '"$NODE_DIES"' = alternate ] && ((r / 2 % 2)); }; then node=--node; fi
  log='"$logs"'/emu.$r.log
  bash '"$src"'/tests/mpi/run_process_failure.sh -n '"$((NODES * PER_NODE))"' -m $mode -s '"$SPLIT"' \
    -c '"$build"'/src/ompi -d "$pk" -t 90 \
    -P "nsenter --net=/run/netns/emu-head --uts='"$state"'/uts/emuhead" \
    -a --host -a '"${hosts%,}"' -a --map-by -a node \
    -a --prtemca -a plm_ssh_agent -a /usr/local/bin/hieragg-emu-agent \
    -a --prtemca -a plm_ssh_no_tree_spawn -a 1 -a --prtemca -a oob_tcp_if_include -a '"$net"'.0/24 \
    -a --mca -a pml -a ob1 -a --mca -a btl -a self,sm,tcp -a --mca -a btl_tcp_if_include -a '"$net"'.0/24 \
    -a --pmixmca -a mca_base_component_show_load_errors -a 0 \
    -- '"$build"'/tests/mpi/hieragg_process_failure '"$FAMILY $CALLS"' random $node >"$log" 2>&1
  rc=$?; [ $rc = 0 ] && pass=$((pass + 1))
  echo "emu.$r rc=$rc $(grep -ao "seed=[0-9]*: world rank [0-9]* .*dies.*" "$log" | head -1) | $(tail -1 "$log")"
done
echo "emulated nodes ('"$NODES"' x '"$PER_NODE"', '"$FAMILY $CALLS"', split '"$SPLIT"'): $pass/'"$RUNS"' passed"
[ $pass = '"$RUNS"' ]'
bash "$src/scripts/openmpi5.sh" -- bash -c "$loop"
