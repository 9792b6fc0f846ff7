#!/bin/bash
# Soak of the process-failure scenarios (docs/testing.md, "Process failures"): runs the
# mpi.ulfm.* CTest entries matching REGEX, each with a fresh random seed, RUNS times in all
# (JOBS at once, as extra load), and prints one line per run and the pass count. Each run
# is the entry's own command (run_process_failure.sh), so a failure reruns with its seed.
#
# usage: ulfm_soak.sh BUILD_DIR RUNS REGEX [JOBS] [LOG_DIR]
# Run inside the Open MPI 5 chroot, e.g. bash scripts/openmpi5.sh -- bash $PWD/tests/mpi/ulfm_soak.sh
# /build$PWD 10 'mpi.ulfm.setup' 2. A hang's stacks: run ulfm_stacks.sh on the host beside it
# (gdb on every rank before the runner's 90 s timeout ends the hang).
set -u
build=$1 runs=$2 regex=$3 jobs=${4:-1} logs=${5:-$build/ulfm-soak}
mkdir -p "$logs"
mapfile -t cmds < <(cd "$build" && ctest -N -V -R "$regex" | sed -n 's/^[0-9]*: Test command: //p')
[ ${#cmds[@]} -gt 0 ] || { echo "ulfm_soak: no entry matches $regex" >&2; exit 2; }
one() { # one INDEX: runs entry INDEX mod the list's length, prints its verdict
  local i=$1 cmd=${cmds[$(( $1 % ${#cmds[@]} ))]} log
  log=$logs/run-$(date +%H%M%S)-$i.log
  eval "$cmd" >"$log" 2>&1
  local rc=$?
  local seed; seed=$(sed -n 's/.*seed=\([0-9]*\).*/\1/p' "$log" | head -1)
  if [ $rc -eq 0 ]; then echo "PASS $i seed=$seed$(grep -aq "NOTE: every survivor" "$log" && echo " (finalize hung: Open MPI)")"
  else echo "FAIL $i seed=$seed log=$log: $(grep -a 'FAIL' "$log" | head -2 | tr '\n' ' ')"; fi
}
pass=0 fail=0
for ((i = 0; i < runs; i += jobs)); do
  for ((j = i; j < i + jobs && j < runs; ++j)); do one "$j" >"$logs/.v$j" & done
  wait
  for ((j = i; j < i + jobs && j < runs; ++j)); do
    cat "$logs/.v$j"; if grep -q '^PASS' "$logs/.v$j"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    rm -f "$logs/.v$j"
  done
done
echo "ulfm_soak: $regex: $pass of $((pass + fail)) passed"
[ $fail -eq 0 ]
