#!/bin/bash
# Runs one MPI test program under mpirun with the freshly built component and
# checks the component's warnings.
#
# usage: run_mpi_test.sh -n NP -m exclusive|beside -c COMPONENT_DIR -d DEFAULT_COMPONENT_PATH
#                        [-s SPLIT] [-g SEGMENT_SIZE] [-w EXPECTED_WARNINGS] [-r WARNING_REGEX]
#                        -- PROGRAM [ARGS...]
#
# Exit 0 iff mpirun exits 0, the output has exactly EXPECTED_WARNINGS (default 0)
# lines containing "coll:hieragg: WARNING", and each of them matches WARNING_REGEX
# (extended regex) when one is given, and there is no ASan/UBSan report.
#
# Sanitizer builds (scripts/sanitize.sh sets these): HIERAGG_TEST_PRELOAD is
# LD_PRELOAD for the ranks only (not mpirun); HIERAGG_TEST_LSAN_ROOT (the source
# tree) makes leaks that hieragg's code made fail the entry, and Open MPI's not.
set -u
np=1 mode=exclusive compdir= defpath= split= seg= want=0 regex=
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
# Sanitizer builds (scripts/sanitize.sh): the ranks, not mpirun, get the ASan/UBSan
# runtime preloaded (the component is instrumented, the program may not be) and
# the sanitizer options.
if [ -n "${HIERAGG_TEST_PRELOAD:-}" ]; then
  args+=(-x LD_PRELOAD="$HIERAGG_TEST_PRELOAD")
  for v in ASAN_OPTIONS UBSAN_OPTIONS; do [ -n "${!v:-}" ] && args+=(-x "$v"); done
fi
# Leaks are judged after the run (Open MPI's own must not fail the ranks).
if [ -n "${HIERAGG_TEST_LSAN_ROOT:-}" ]; then
  args+=(-x "LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}exitcode=0")
elif [ -n "${LSAN_OPTIONS:-}" ]; then
  args+=(-x LSAN_OPTIONS)
fi
[ -n "$seg" ] && args+=(--mca coll_hieragg_segment_size "$seg")

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
san=$(grep -cE 'ERROR: AddressSanitizer|SUMMARY: UndefinedBehaviorSanitizer|: runtime error: ' "$out")
if [ "$san" -ne 0 ]; then
  echo "run_mpi_test.sh: FAIL: $san sanitizer report line(s)"
  status=1
fi
# Leaks (sanitizer builds): only those made by hieragg's code count, see lsan-ours.awk.
if [ -n "${HIERAGG_TEST_LSAN_ROOT:-}" ] &&
   ! awk -v root="$HIERAGG_TEST_LSAN_ROOT" -f "$(dirname "$0")/../sanitizers/lsan-ours.awk" "$out"; then
  echo "run_mpi_test.sh: FAIL: LeakSanitizer found leaks made by hieragg's code (above)"
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
[ "$status" -eq 0 ] && echo "run_mpi_test.sh: OK (np=$np mode=$mode split=${split:-default} segment=${seg:-default}, $got warning(s))"
exit $status
