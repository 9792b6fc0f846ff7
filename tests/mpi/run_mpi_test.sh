#!/bin/bash
# Runs one MPI test program under mpirun with the freshly built component and
# checks the component's warnings.
#
# usage: run_mpi_test.sh -n NP -m exclusive|beside -c COMPONENT_DIR -d DEFAULT_COMPONENT_PATH
#                        [-s SPLIT] [-g SEGMENT_SIZE] [-w EXPECTED_WARNINGS] [-r WARNING_REGEX]
#                        [-o OUTPUT_REGEX] [-p NAME=VALUE]... -- PROGRAM [ARGS...]
# (-p: any further MCA parameter, e.g. -p coll_hieragg_allreduce_algorithm=kary)
#
# Exit 0 iff mpirun exits 0, the output has exactly EXPECTED_WARNINGS (default 0)
# lines containing "coll:hieragg: WARNING", and each of them matches WARNING_REGEX
# (extended regex) when one is given, and some line matches OUTPUT_REGEX when one is given.
set -u
np=1 mode=exclusive compdir= defpath= split= seg= want=0 regex= outre=
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    -n) np=$2; shift 2 ;;
    -m) mode=$2; shift 2 ;;
    -c) compdir=$2; shift 2 ;;
    -d) defpath=$2; shift 2 ;;
    -s) split=$2; shift 2 ;;
    -g) seg=$2; shift 2 ;;
    -w) want=$2; shift 2 ;;
    -r) regex=$2; shift 2 ;;
    -o) outre=$2; shift 2 ;;
    -p) extra+=(--mca "${2%%=*}" "${2#*=}"); shift 2 ;;
    --) shift; break ;;
    *) echo "run_mpi_test.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
args=(--allow-run-as-root --oversubscribe --bind-to none -np "$np"
      --mca mpi_yield_when_idle 1
      --mca mca_base_component_path "$compdir:$defpath")
case "$mode" in
  exclusive) args+=(--mca coll hieragg) ;;
  beside) args+=(--mca coll_hieragg_priority 100) ;;
  *) echo "run_mpi_test.sh: mode must be exclusive or beside" >&2; exit 2 ;;
esac
[ -n "$split" ] && args+=(--mca coll_hieragg_split "$split")
[ -n "$seg" ] && args+=(--mca coll_hieragg_segment_size "$seg")
args+=("${extra[@]}")

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "+ mpirun ${args[*]} $*"
mpirun "${args[@]}" "$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
status=0
if [ "$rc" -ne 0 ]; then
  echo "run_mpi_test.sh: FAIL: mpirun exited with $rc"
  status=1
fi
got=$(grep -c 'coll:hieragg: WARNING' "$out")
if [ "$got" -ne "$want" ]; then
  echo "run_mpi_test.sh: FAIL: $got line(s) with 'coll:hieragg: WARNING', expected $want"
  status=1
fi
if [ -n "$regex" ] && [ "$got" -gt 0 ]; then
  bad=$(grep 'coll:hieragg: WARNING' "$out" | grep -Evc -- "$regex")
  if [ "$bad" -ne 0 ]; then
    echo "run_mpi_test.sh: FAIL: $bad warning line(s) do not match /$regex/"
    status=1
  fi
fi
if [ -n "$outre" ] && ! grep -Eq -- "$outre" "$out"; then
  echo "run_mpi_test.sh: FAIL: no output line matches /$outre/"
  status=1
fi
[ "$status" -eq 0 ] && echo "run_mpi_test.sh: OK (np=$np mode=$mode split=${split:-default} segment=${seg:-default}, $got warning(s))"
exit $status
