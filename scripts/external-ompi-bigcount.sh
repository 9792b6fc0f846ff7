#!/bin/bash
# Runs Open MPI's public big-count collective tests (collective-big-count of
# github.com/open-mpi/ompi-tests-public, fetched at run time into a scratch
# directory, never into this repository) against the hieragg component of a
# build tree, in several configurations, and prints a pass/fail table. Needs
# network access (or HIERAGG_OMPI_TESTS_SRC pointing at an existing checkout);
# not part of CI: each test moves gigabytes and takes tens of seconds.
#
# usage: scripts/external-ompi-bigcount.sh [-b BUILDDIR] [-w WORKDIR] [-t TIMEOUT]
#                                          [-c CONFIGS] [-r TEST_REGEX] [-n NP] [-u]
#   CONFIGS: comma list of baseline (Open MPI's own stack), exclusive, beside, virtual2
#            (exclusive + coll_hieragg_split virtual:2); default exclusive,beside,virtual2
#   TEST_REGEX: only tests whose name matches (extended regex, e.g. 'allreduce|bcast')
#   -u: the *_uniform_count binaries (count INT_MAX whatever the type) instead of the
#       payload ones (HIERAGG_BIGCOUNT_PAYLOAD bytes per buffer)
# Memory: the payload tests use buffers of HIERAGG_BIGCOUNT_PAYLOAD bytes (512 MiB);
# the uniform-count ones size their buffers from BIGCOUNT_MEMORY_PERCENT of the machine's
# memory (all local ranks together); this script sets 15 % and an inflation of 1.5
# unless they are set already (24 GiB machine: about 3-4 GiB in all).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build work=/tmp/hieragg-ompi-bigcount tmo=600 configs=exclusive,beside,virtual2
filter= np=4 suffix=
while getopts b:w:t:c:r:n:u o; do
  case $o in
    b) build=$(cd "$OPTARG" && pwd) ;; w) work=$OPTARG ;; t) tmo=$OPTARG ;;
    c) configs=$OPTARG ;; r) filter=$OPTARG ;; n) np=$OPTARG ;; u) suffix=_uniform_count ;;
    *) sed -n 2,20p "$0"; exit 2 ;;
  esac
done
mkdir -p "$work"
src=${HIERAGG_OMPI_TESTS_SRC:-$work/ompi-tests-public}
if [ ! -d "$src/collective-big-count" ]; then
  echo "== cloning ompi-tests-public (sparse: collective-big-count) into $src"
  rm -rf "$src"
  git clone --quiet --depth 1 --filter=blob:none --sparse \
      https://github.com/open-mpi/ompi-tests-public "$src" || { echo "clone failed (network?)"; exit 2; }
  git -C "$src" sparse-checkout set collective-big-count || exit 2
fi
# Payload per buffer: the suite's default is INT_MAX bytes, but bcast and the rooted tests do
# not shrink it to BIGCOUNT_MEMORY_PERCENT (4 ranks x 2 GiB x 2 buffers would not fit beside
# other jobs), so it is 512 MiB unless HIERAGG_BIGCOUNT_PAYLOAD says otherwise.
payload=${HIERAGG_BIGCOUNT_PAYLOAD:-536870911}
bin=$work/bin.$payload logs=$work/logs
mkdir -p "$bin" "$logs"
if [ ! -x "$bin/test_bcast" ]; then
  echo "== building the tests"
  cp "$src"/collective-big-count/*.c "$src"/collective-big-count/*.h "$src"/collective-big-count/Makefile "$bin"/
  make -s -C "$bin" -j2 all TEST_PAYLOAD_SIZE="$payload" >"$logs/make.log" 2>&1 || { echo "build failed: $logs/make.log"; exit 2; }
fi
export BIGCOUNT_MEMORY_PERCENT=${BIGCOUNT_MEMORY_PERCENT:-15}
export BIGCOUNT_ALG_INFLATION=${BIGCOUNT_ALG_INFLATION:-1.5}
pkglib=$(ompi_info --path pkglibdir | sed 's/.*: *//')
base=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np "$np"
      -x BIGCOUNT_MEMORY_PERCENT -x BIGCOUNT_ALG_INFLATION)
comp=(--mca mca_base_component_path "$build/src/ompi:$pkglib")
tests=$(cd "$bin" && ls test_*.c | sed 's/\.c$//' | grep -E "${filter:-.}")
declare -A pass fail
IFS=, read -ra cfgs <<<"$configs"
for t in $tests; do
  row="$t$suffix"
  for c in "${cfgs[@]}"; do
    case $c in
      baseline) extra=() ;;
      exclusive) extra=("${comp[@]}" --mca coll hieragg) ;;
      beside) extra=("${comp[@]}" --mca coll_hieragg_priority 100) ;;
      virtual2) extra=("${comp[@]}" --mca coll hieragg --mca coll_hieragg_split virtual:2) ;;
      *) echo "unknown config $c"; exit 2 ;;
    esac
    log=$logs/$c.$t$suffix.log
    start=$SECONDS
    timeout -k 10 "$tmo" "${base[@]}" "${extra[@]}" "$bin/$t$suffix" >"$log" 2>&1
    rc=$?
    # Passed: mpirun exited 0, ranks printed PASSED (or Passed), none printed ERROR, hieragg did not warn.
    if [ $rc -eq 0 ] && grep -qi 'passed' "$log" && ! grep -q 'ERROR' "$log" \
       && ! grep -q 'coll:hieragg: WARNING' "$log"; then
      v=pass; pass[$c]=$(( ${pass[$c]:-0} + 1 ))
    else
      v="FAIL(rc=$rc)"; fail[$c]=$(( ${fail[$c]:-0} + 1 ))
    fi
    row="$row  $c:$v:$((SECONDS - start))s"
  done
  echo "$row"
done
for c in "${cfgs[@]}"; do echo "$c: ${pass[$c]:-0} passed, ${fail[$c]:-0} failed (logs: $logs)"; done
for c in "${cfgs[@]}"; do [ "${fail[$c]:-0}" -eq 0 ] || exit 1; done
