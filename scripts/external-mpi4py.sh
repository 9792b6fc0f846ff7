#!/usr/bin/env bash
# Runs mpi4py's own test suite (the version Debian's python3-mpi4py is, 3.1.4 on Debian 12)
# against a build's hieragg component, in chosen configurations, and reports pass/fail counts.
#
# usage: scripts/external-mpi4py.sh [-b BUILD_DIR] [-n "4 5"] [-s "SPLIT ..."] [-m "MODE ..."]
#                                   [-i PATTERN]... [-e PATTERN]... [-t SECONDS] [-k]
#   -b  build directory whose src/ompi holds mca_coll_hieragg.so (default: build)
#   -n  process counts (default: "4 5")
#   -s  coll_hieragg_split values; "default" leaves it unset (default: every one-host split of
#       docs/decomposition.md: default node numa virtual:2 virtual:3 roundrobin:2
#       virtual:2,virtual:4)
#   -m  modes: exclusive (--mca coll hieragg), beside (coll_hieragg_priority 100), ompi (Open MPI's
#       own stack, no hieragg: the reference) (default: "ompi exclusive")
#   -i/-e  include/exclude patterns (Python regular expressions) over the test modules' names
#       (test_cco_vec, ...); each selected module runs as one mpirun (default: every module
#       except spawn/dynproc, -e spawn -e dynproc: process management, not collectives, and
#       minutes per run on Open MPI 4.1 when oversubscribed)
#   -t  timeout of one module's mpirun, seconds (default 900)
#   -k  keep the scratch directory
# The source comes from Debian's archive at run time (apt-get source with a throw-away
# configuration in a scratch directory; nothing is installed, nothing is committed), for the
# installed python3-mpi4py's source version. HIERAGG_MPI4PY_SRC=DIR uses an unpacked source
# tree of that version instead. Exit 0: every run passed; 1: a run failed; 77: mpi4py or its
# source could not be had (a loud message says why); 2: usage.
set -uo pipefail
cd "$(dirname "$0")/.."
build=build nps="4 5" modes="ompi exclusive" timeout_s=900 keep=0
splits="default node numa virtual:2 virtual:3 roundrobin:2 virtual:2,virtual:4"
incl_pat=() excl_pat=()
while getopts "b:n:s:m:i:e:t:k" o; do
  case $o in
    b) build=$OPTARG ;; n) nps=$OPTARG ;; s) splits=$OPTARG ;; m) modes=$OPTARG ;;
    i) incl_pat+=("$OPTARG") ;; e) excl_pat+=("$OPTARG") ;; t) timeout_s=$OPTARG ;; k) keep=1 ;;
    *) sed -n '2,24p' "$0" >&2; exit 2 ;;
  esac
done
((${#incl_pat[@]} + ${#excl_pat[@]})) || excl_pat=(spawn dynproc)

skip() {
  echo "external-mpi4py: SKIPPED: $*" >&2
  echo "external-mpi4py: SKIPPED: mpi4py's test suite did not run (see above)"
  exit 77
}

py=/usr/bin/python3  # Debian's python3-mpi4py is for Debian's python, whatever is first in PATH
have=$("$py" -c 'import mpi4py; print(mpi4py.__version__)' 2>/dev/null) ||
  skip "python3-mpi4py is not installed (scripts/install-deps.sh installs it)"
srcver=$(dpkg-query -W -f='${source:Version}' python3-mpi4py 2>/dev/null) ||
  skip "dpkg does not know python3-mpi4py"
comp=$(cd "$build" 2>/dev/null && pwd)/src/ompi
[ -f "$comp/mca_coll_hieragg.so" ] || { echo "external-mpi4py: no $comp/mca_coll_hieragg.so (build first)" >&2; exit 2; }
pkglib=$(ompi_info --path pkglibdir | sed 's/.*: *//')

scratch=$(mktemp -d "${TMPDIR:-/tmp}/hieragg-mpi4py.XXXXXX")
((keep)) || trap 'rm -rf "$scratch"' EXIT

fetch_source() {
  # A throw-away apt configuration: deb-src lines of the host's own Debian suites, package
  # lists and downloads in the scratch directory; the system's apt state is not touched.
  local conf=$scratch/apt
  mkdir -p "$conf/lists/partial" "$conf/cache/archives/partial"
  local suites
  suites=$(. /etc/os-release && echo "$VERSION_CODENAME")
  echo "deb-src http://deb.debian.org/debian $suites main" > "$conf/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$conf/sources.list" -o "Dir::Etc::SourceParts=$conf/none"
              -o "Dir::State::Lists=$conf/lists" -o "Dir::Cache=$conf/cache" -o APT::Sandbox::User=root)
  apt-get -qq "${opts[@]}" update >"$scratch/apt.log" 2>&1 || return 1
  (cd "$scratch" && apt-get -q "${opts[@]}" source --download-only "mpi4py=$srcver") >>"$scratch/apt.log" 2>&1 ||
    return 1
  local orig
  orig=$(ls "$scratch"/mpi4py_*.orig.tar.* 2>/dev/null | head -1)
  [ -n "$orig" ] || return 1
  mkdir -p "$scratch/src" && tar -xf "$orig" -C "$scratch/src" --strip-components=1
}

if [ -n "${HIERAGG_MPI4PY_SRC:-}" ]; then
  src=$HIERAGG_MPI4PY_SRC
  echo "external-mpi4py: source tree $src (HIERAGG_MPI4PY_SRC)"
elif fetch_source; then
  src=$scratch/src
  echo "external-mpi4py: source of mpi4py $srcver from Debian's archive"
else
  tail -5 "$scratch/apt.log" >&2
  skip "could not fetch the source of mpi4py $srcver from Debian's archive (apt-get source failed, above);" \
       "set HIERAGG_MPI4PY_SRC to an unpacked mpi4py $have source tree to run it"
fi
[ -f "$src/test/runtests.py" ] || skip "$src/test/runtests.py does not exist"

modules=$(cd "$src/test" && ls test_*.py | sed 's/\.py$//' | "$py" -c '
import re, sys
inc, exc = sys.argv[1], sys.argv[2]
for m in sys.stdin.read().split():
    if exc and re.search(exc, m): continue
    if inc and not re.search(inc, m): continue
    print(m)' "$(printf '%s|' "${incl_pat[@]}" | sed 's/|$//')" "$(printf '%s|' "${excl_pat[@]}" | sed 's/|$//')")
[ -n "$modules" ] || { echo "external-mpi4py: no test module matches the patterns" >&2; exit 2; }
echo "external-mpi4py: mpi4py $have ($py), component $comp"
printf '%-10s %-3s %-22s %6s %6s %6s %6s %8s  %s\n' mode np split ran fail error skip seconds verdict
total_runs=0 failed_runs=0
for mode in $modes; do
  for np in $nps; do
    for split in $splits; do
      [ "$mode" = ompi ] && [ "$split" != default ] && continue  # no hieragg: the split is moot
      args=(--oversubscribe --allow-run-as-root --bind-to none -np "$np" --mca mpi_yield_when_idle 1
            --mca mca_base_component_path "$comp:$pkglib")
      case $mode in
        exclusive) args+=(--mca coll hieragg) ;;
        beside) args+=(--mca coll_hieragg_priority 100) ;;
        ompi) args+=(--mca coll ^hieragg) ;;
        *) echo "external-mpi4py: unknown mode $mode" >&2; exit 2 ;;
      esac
      [ "$split" = default ] || args+=(--mca coll_hieragg_split "$split")
      # One mpirun per test module: a module that hangs or crashes is named and timed out
      # alone, and the verdict is each mpirun's exit status (unittest's summaries of several
      # ranks interleave in one log, so counting "OK" lines can miscount).
      log=$scratch/$mode.np$np.${split//[:,\/]/_}.log
      : >"$log"
      t0=$(date +%s) bad=()
      for module in $modules; do
        echo "=== $module" >>"$log"
        (cd "$src/test" && timeout -k 10 "$timeout_s" mpirun "${args[@]}" "$py" runtests.py --no-builddir \
           -i "^$module\$") >>"$log" 2>&1
        rc=$?
        if [ "$rc" -ne 0 ] || grep -q '^FAILED' <(sed -n "/^=== $module\$/,\$p" "$log"); then
          bad+=("$module(exit $rc)")
        fi
      done
      secs=$(($(date +%s) - t0))
      # Every rank prints its unittest summary: sum them.
      ran=$(grep -Eo 'Ran [0-9]+ test' "$log" | awk '{s += $2} END {print s + 0}')
      fail=$(grep -Eo 'failures=[0-9]+' "$log" | awk -F= '{s += $2} END {print s + 0}')
      err=$(grep -Eo 'errors=[0-9]+' "$log" | awk -F= '{s += $2} END {print s + 0}')
      skipped=$(grep -Eo 'skipped=[0-9]+' "$log" | awk -F= '{s += $2} END {print s + 0}')
      verdict=PASS
      if ((${#bad[@]})) || ((fail + err)); then
        verdict="FAIL (${bad[*]:-failures/errors}; log $log)"
        failed_runs=$((failed_runs + 1))
        keep=1; trap - EXIT
      fi
      total_runs=$((total_runs + 1))
      printf '%-10s %-3s %-22s %6s %6s %6s %6s %8s  %s\n' "$mode" "$np" "$split" "$ran" "$fail" "$err" "$skipped" \
        "$secs" "$verdict"
    done
  done
done
echo "$((total_runs - failed_runs)) passed, $failed_runs failed"
((failed_runs == 0)) || { echo "external-mpi4py: logs kept in $scratch" >&2; exit 1; }
