#!/usr/bin/env bash
# hieragg-tune on emulated nodes (../shared/tools/emucluster, network namespaces with
# shaped links): 2 nodes x 4 ranks, split node; tunes, plots, then compares tuned vs
# model-only. Everything runs under flock /tmp/emucluster.lock (one user of the
# emulated cluster at a time) and tears the cluster down at the end. Root only.
# usage: bench/tune/emucluster-tune.sh OUTDIR [hieragg-tune options]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
emu=${EMU_DIR:-$here/../shared/tools/emucluster}
[ -d "$emu" ] || emu=$here/../../shared/tools/emucluster  # from a worktree under /work/wt
out=${1:?usage: emucluster-tune.sh OUTDIR [hieragg-tune options]}
shift
NODES=${NODES:-2}
PER_NODE=${PER_NODE:-4}
mkdir -p "$out"
hosts=$(for ((i = 0; i < NODES; ++i)); do printf 'node%d:%d,' "$i" "$PER_NODE"; done)
tune=(bash "$here/build/bench/hieragg-tune" -n $((NODES * PER_NODE)) --split node
      --launcher "$emu/emu-mpirun" --mpirun-args "--host ${hosts%,}" "$@")
exec 9> /tmp/emucluster.lock
flock 9
"$emu/emu-setup.sh" -n "$NODES" -d "${DELAY:-50us}" -r "${RATE:-1gbit}"
trap '"$emu/emu-teardown.sh" >/dev/null 2>&1 || true' EXIT
"${tune[@]}" --out "$out/rules.json" --plot "$out/plots" 2>&1 | tee "$out/tune.log"
"${tune[@]}" --compare "$out/rules.json" --rounds "${ROUNDS:-5}" 2>&1 | tee "$out/compare.log"
