#!/bin/bash
# Runs hieragg_process_failure (process failure under ULFM, docs/fault-tolerance.md) with fault
# tolerance enabled and the freshly built component, and judges it by what the survivors
# print: the job itself ends with a killed process, so mpirun's status says nothing.
#
# usage: run_process_failure.sh -n NP -m exclusive|beside -c COMPONENT_DIR -d DEFAULT_COMPONENT_PATH
#                         [-s SPLIT] [-g SEGMENT_SIZE] [-t TIMEOUT_S] -- PROGRAM FAMILY MODE SEED [--node]
# SEED "random" draws one (printed). Exit 0 iff every survivor printed "ULFM-OK", none
# "ULFM-FAIL", the whole run took less than TIMEOUT_S (default 90; a hang is killed
# there and fails), and no "coll:hieragg: WARNING" line appeared.
set -u
np=4 mode=exclusive compdir= defpath= split= seg= timeout=90
while [ $# -gt 0 ]; do
  case "$1" in
    -n) np=$2; shift 2 ;;
    -m) mode=$2; shift 2 ;;
    -c) compdir=$2; shift 2 ;;
    -d) defpath=$2; shift 2 ;;
    -s) split=$2; shift 2 ;;
    -g) seg=$2; shift 2 ;;
    -t) timeout=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_process_failure.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ $# -ge 4 ] || { echo "run_process_failure.sh: PROGRAM FAMILY MODE SEED expected" >&2; exit 2; }
prog=$1 family=$2 cmode=$3 seed=$4
shift 4
[ "$seed" = random ] && seed=$(( (RANDOM << 15) | RANDOM ))
args=(--allow-run-as-root --oversubscribe --bind-to none -np "$np" --with-ft ulfm
      --mca mpi_yield_when_idle 1
      --mca mca_base_component_path "$compdir:$defpath")
case "$mode" in
  exclusive) args+=(--mca coll hieragg) ;;
  beside) args+=(--mca coll_hieragg_priority 100) ;;
  *) echo "run_process_failure.sh: mode must be exclusive or beside" >&2; exit 2 ;;
esac
[ -n "$split" ] && args+=(--mca coll_hieragg_split "$split")
[ -n "$seg" ] && args+=(--mca coll_hieragg_segment_size "$seg")
export PMIX_MCA_mca_base_component_show_load_errors=0

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "+ mpirun ${args[*]} $prog $family $cmode $seed $*"
start=$SECONDS
timeout -k 5 "$timeout" mpirun "${args[@]}" "$prog" "$family" "$cmode" "$seed" "$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
took=$((SECONDS - start))
status=0
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "run_process_failure.sh: FAIL: the job hung (killed after ${timeout}s)"
  status=1
fi
# How many die: the program's own plan line ("... N of NP ranks die").
dead=$(sed -n 's/.* \([0-9][0-9]*\) of [0-9][0-9]* ranks die$/\1/p' "$out" | head -1)
if [ -z "$dead" ]; then
  echo "run_process_failure.sh: FAIL: the program did not print its plan"
  status=1
  dead=0
fi
ok=$(grep -c '^ULFM-OK' "$out")
bad=$(grep -c '^ULFM-FAIL' "$out")
if [ "$ok" -ne $((np - dead)) ] || [ "$bad" -ne 0 ]; then
  echo "run_process_failure.sh: FAIL: $ok survivor(s) OK, $bad failed; expected $((np - dead)) OK"
  status=1
fi
warn=$(grep -c 'coll:hieragg: WARNING' "$out")
if [ "$warn" -ne 0 ]; then
  echo "run_process_failure.sh: FAIL: $warn 'coll:hieragg: WARNING' line(s)"
  status=1
fi
[ "$status" -eq 0 ] && echo "run_process_failure.sh: OK (np=$np mode=$mode split=${split:-default} $family $cmode seed=$seed, ${took}s)"
exit $status
