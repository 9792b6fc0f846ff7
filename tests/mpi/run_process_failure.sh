#!/bin/bash
# Runs hieragg_process_failure (process failure under ULFM, docs/fault-tolerance.md) with fault
# tolerance enabled and the freshly built component, and judges it by what the survivors
# print: the job itself ends with a killed process, so mpirun's status says nothing.
#
# usage: run_process_failure.sh -n NP -m exclusive|beside -c COMPONENT_DIR -d DEFAULT_COMPONENT_PATH
#                         [-s SPLIT] [-g SEGMENT_SIZE] [-t TIMEOUT_S] [-a MPIRUN_ARG]... [-P PREFIX]
#                         -- PROGRAM FAMILY MODE SEED [--node]
# -a: one more mpirun argument (repeatable); -P: a command (word-split) mpirun runs under,
# e.g. nsenter into an emulated node (run_process_failure_emu.sh).
# SEED "random" draws one (printed). Exit 0 iff every survivor printed "ULFM-OK", none
# "ULFM-FAIL", every verdict came within TIMEOUT_S (default 90; a hang is killed there
# and fails), and no "coll:hieragg: WARNING" line appeared. A hang in MPI_Finalize after
# all verdicts (Open MPI's, see below) is ended after 15 s and reported as a NOTE.
set -u
np=4 mode=exclusive compdir= defpath= split= seg= timeout=90 prefix=
more=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) np=$2; shift 2 ;;
    -m) mode=$2; shift 2 ;;
    -c) compdir=$2; shift 2 ;;
    -d) defpath=$2; shift 2 ;;
    -s) split=$2; shift 2 ;;
    -g) seg=$2; shift 2 ;;
    -t) timeout=$2; shift 2 ;;
    -a) more+=("$2"); shift 2 ;;
    -P) prefix=$2; shift 2 ;;
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
args+=("${more[@]}")
export PMIX_MCA_mca_base_component_show_load_errors=0

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "+ ${prefix:+$prefix }mpirun ${args[*]} $prog $family $cmode $seed $*"
start=$SECONDS
# shellcheck disable=SC2086
$prefix mpirun "${args[@]}" "$prog" "$family" "$cmode" "$seed" "$@" >"$out" 2>&1 &
job=$!
# The survivors' verdicts come before MPI_Finalize. Open MPI 5.0.7's own finalize can hang
# after a process failure (the runtime's fence waits for the dead process; also with Open
# MPI's own collectives, open-mpi/ompi#11404): once every survivor has printed its verdict,
# finalize gets kFinalizeGrace seconds, then the job is ended and the runner says so.
kFinalizeGrace=15
dead= verdicts_at= hung=0 finalize_hang=0
while kill -0 "$job" 2>/dev/null; do
  sleep 0.5
  [ -z "$dead" ] && dead=$(sed -n 's/.* \([0-9][0-9]*\) of [0-9][0-9]* ranks die$/\1/p' "$out" | head -1)
  n=$(grep -acE '^ULFM-(OK|FAIL)' "$out")
  if [ -n "$dead" ] && [ "$n" -ge $((np - dead)) ] && [ -z "$verdicts_at" ]; then verdicts_at=$SECONDS; fi
  if [ -n "$verdicts_at" ] && [ $((SECONDS - verdicts_at)) -ge $kFinalizeGrace ]; then finalize_hang=1; break; fi
  if [ $((SECONDS - start)) -ge "$timeout" ]; then hung=1; break; fi
done
if kill -0 "$job" 2>/dev/null; then
  pkill -TERM -P "$job" 2>/dev/null; kill -TERM "$job" 2>/dev/null
  sleep 2; pkill -KILL -P "$job" 2>/dev/null; kill -KILL "$job" 2>/dev/null
fi
wait "$job" 2>/dev/null
# mpirun may forward the whole output only as the job ends (under load): read the plan
# again from the complete output.
[ -z "$dead" ] && dead=$(sed -n 's/.* \([0-9][0-9]*\) of [0-9][0-9]* ranks die$/\1/p' "$out" | head -1)
grep -av 'Unable to find reachable pairing' "$out"
took=$((SECONDS - start))
status=0
if [ "$hung" = 1 ]; then
  echo "run_process_failure.sh: FAIL: the job hung before every survivor's verdict (killed after ${timeout}s)"
  status=1
fi
if [ "$finalize_hang" = 1 ]; then
  echo "run_process_failure.sh: NOTE: every survivor gave its verdict, then MPI_Finalize hung for ${kFinalizeGrace}s" \
       "(Open MPI's runtime fence after a failure, open-mpi/ompi#11404; ended by the runner)"
fi
if [ -z "$dead" ]; then
  echo "run_process_failure.sh: FAIL: the program did not print its plan"
  status=1
  dead=0
fi
ok=$(grep -ac '^ULFM-OK' "$out")
bad=$(grep -ac '^ULFM-FAIL' "$out")
if [ "$ok" -ne $((np - dead)) ] || [ "$bad" -ne 0 ]; then
  echo "run_process_failure.sh: FAIL: $ok survivor(s) OK, $bad failed; expected $((np - dead)) OK"
  status=1
fi
warn=$(grep -ac 'coll:hieragg: WARNING' "$out")
if [ "$warn" -ne 0 ]; then
  echo "run_process_failure.sh: FAIL: $warn 'coll:hieragg: WARNING' line(s)"
  status=1
fi
fin=""
[ "$finalize_hang" = 1 ] && fin=", finalize hung (Open MPI)"
[ "$status" -eq 0 ] && echo "run_process_failure.sh: OK (np=$np mode=$mode split=${split:-default} $family $cmode seed=$seed, ${took}s$fin)"
exit $status
