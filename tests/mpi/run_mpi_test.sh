#!/bin/bash
# Runs one MPI test program under mpirun with the freshly built component and
# checks the component's warnings.
#
# usage: run_mpi_test.sh -n NP -m exclusive|beside -c COMPONENT_DIR -d DEFAULT_COMPONENT_PATH
#                        [-s SPLIT] [-g SEGMENT_SIZE] [-w EXPECTED_WARNINGS] [-r WARNING_REGEX]
#                        [-p NAME=VALUE]... [-f FIFO_PATH] [-M MIB] [-v VERBOSE] [-e 'REGEX=N']...
#                        [-o OUTPUT_REGEX]... [-T PML] -- PROGRAM [ARGS...]
#
# -T runs the job on another PML: cm-ofi or ucx (pml_args.sh).
# -p passes one more MCA parameter (--mca NAME VALUE; the value may be empty; it may
# be repeated); -f creates a FIFO at FIFO_PATH for the run (bad-input tests name it in
# the split); -M MIB skips (exit 77, loudly) unless MemAvailable is at least MIB mebibytes.
# Exit 0 iff mpirun exits 0, the output has exactly EXPECTED_WARNINGS (default 0)
# lines containing "coll:hieragg: WARNING", each of them matches WARNING_REGEX
# (extended regex) when one is given, none holds a non-printable byte, exactly
# N lines match each -e REGEX (with -v, coll_hieragg_verbose: e.g. which
# communicators hieragg served), at least one line matches each -o OUTPUT_REGEX
# (for output whose count depends on the program, e.g. one verbose line per
# communicator it creates), and there is no ASan/UBSan report.
#
# HIERAGG_TEST_INSTALLED=1: run the component installed in Open MPI's own directory, with
# no component path option (-c is ignored), and fail unless every process loaded that copy
# (from -d; installed_copy.sh says how). scripts/test-installed.sh sets it.
#
# Sanitizer builds (scripts/sanitize.sh sets these): HIERAGG_TEST_PRELOAD is
# LD_PRELOAD for the ranks only (not mpirun); HIERAGG_TEST_LSAN_ROOT (the source
# tree) makes leaks that hieragg's code made fail the entry, and Open MPI's not.
set -u
np=1 mode=exclusive compdir= defpath= split= seg= want=0 regex= fifo= verbose=
extra=() expects=() outputs=() minmem= pml=
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
    -M) minmem=$2; shift 2 ;;
    -o) outputs+=("$2"); shift 2 ;;
    -p) extra+=(--mca "${2%%=*}" "${2#*=}"); shift 2 ;;
    -f) fifo=$2; shift 2 ;;
    -v) verbose=$2; shift 2 ;;
    -e) expects+=("$2"); shift 2 ;;
    -T) pml=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_mpi_test.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
args=(--allow-run-as-root --oversubscribe --bind-to none -np "$np"
      --mca mpi_yield_when_idle 1)
. "$(dirname "$0")/installed_copy.sh"
if [ "$installed_copy" = 1 ]; then
  args+=(--mca mca_base_verbose "$installed_copy_verbose")
else
  args+=(--mca mca_base_component_path "$compdir:$defpath")
fi
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
args+=("${extra[@]}")
[ -n "$verbose" ] && args+=(--mca coll_hieragg_verbose "$verbose")
pml_mpirun_args=()
. "$(dirname "$0")/pml_args.sh"
pml_args "$pml" lo || exit 2  # one host: loopback only (and shared memory)
args+=("${pml_mpirun_args[@]}")

# Open MPI 5's PMIx reads mca_base_component_path too and complains about every
# file in our directory that is not a PMIx plugin; it has no plugin of ours to load.
export PMIX_MCA_mca_base_component_show_load_errors=0

if [ -n "$minmem" ]; then
  avail=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo)
  if [ "${avail:-0}" -lt "$minmem" ]; then
    echo "run_mpi_test.sh: SKIPPED: this test needs ${minmem} MiB of available memory, the machine has ${avail:-unknown} MiB"
    exit 77
  fi
fi

out=$(mktemp)
trap 'rm -f "$out" ${fifo:+"$fifo"}' EXIT
if [ -n "$fifo" ]; then
  rm -f "$fifo"
  mkfifo "$fifo" || exit 2
fi
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
if [ "$installed_copy" = 1 ] && ! installed_copy_check "$out" "$defpath" "$np"; then
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
if grep 'coll:hieragg: WARNING' "$out" | LC_ALL=C grep -q '[^[:print:]]'; then
  echo "run_mpi_test.sh: FAIL: a warning line holds non-printable bytes"
  status=1
fi
for e in "${expects[@]}"; do
  n=$(grep -Ec -- "${e%=*}" "$out")
  if [ "$n" -ne "${e##*=}" ]; then
    echo "run_mpi_test.sh: FAIL: $n line(s) match /${e%=*}/, expected ${e##*=}"
    status=1
  fi
done
for o in "${outputs[@]}"; do
  if ! grep -Eq -- "$o" "$out"; then
    echo "run_mpi_test.sh: FAIL: no output line matches /$o/"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "run_mpi_test.sh: OK (np=$np mode=$mode${pml:+ pml=$pml} split=${split:-default} segment=${seg:-default}${extra[*]:+ ${extra[*]}}, $got warning(s))"
exit $status
