#!/bin/bash
# Companion of ulfm_soak.sh, run on the host beside it (the chroot has no gdb): every rank of
# hieragg_process_failure or hieragg_stale_message that has lived longer than AGE seconds
# (a run takes 2-10 s, up to ~55 s at load 30; the runner kills a hang at 90 s) gets the backtraces of all its
# threads written once to OUT_DIR/<family>-<calls>-<seed>-rank<world rank>-<pid>.txt, read
# with the chroot as gdb's sysroot. Runs until killed.
#
# usage: ulfm_stacks.sh [AGE] [OUT_DIR] [CHROOT]   (defaults 40, ./ulfm-stacks, /var/cache/hieragg/trixie)
set -u
age=${1:-40} out=${2:-ulfm-stacks} root=${3:-/var/cache/hieragg/trixie}
command -v gdb >/dev/null || { echo "ulfm_stacks: gdb is not installed" >&2; exit 2; }
mkdir -p "$out"
declare -A seen
while :; do
  while read -r pid etime prog family calls seed _; do
    # (ps reads a huge age for a process just starting or exiting: not a hang)
    [ "$etime" -ge "$age" ] && [ "$etime" -lt 86400 ] && [ -z "${seen[$pid]:-}" ] || continue
    seen[$pid]=1
    rank=$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    f=$out/$family-$calls-$seed-rank$rank-$pid.txt
    { echo "pid $pid, world rank $rank, alive ${etime}s at $(date -u +%T): $prog $family $calls $seed"
      timeout 60 gdb -batch -ex "set sysroot $root" -ex "file /proc/$pid/exe" -ex "attach $pid" -ex "thread apply all bt" 2>&1 |
        grep -v '^warning\|^\[New \|libthread_db\|^Using host\|^$'
    } >"$f" 2>/dev/null
    echo "ulfm_stacks: $f"
  done < <(ps -eo pid=,etimes=,args= | awk '$3 ~ /hieragg_(process_failure|stale_message)$/')
  sleep 2
done
