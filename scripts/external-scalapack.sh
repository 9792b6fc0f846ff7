#!/usr/bin/env bash
# Runs Debian's ScaLAPACK test programs (package scalapack-mpi-test: the BLACS testers, whose
# broadcasts and combines run over row, column and grid communicators with derived datatypes
# and user-defined reductions, the PBLAS testers and the ScaLAPACK drivers' testers, 2.2.1 on
# Debian 12) against a build's hieragg component, in chosen configurations, next to Open MPI's
# own stack, and reports each program's verdict.
#
# usage: scripts/external-scalapack.sh [-b BUILD_DIR] [-n NP] [-s "SPLIT ..."] [-m "MODE ..."]
#                                      [-i PATTERN]... [-t SECONDS] [-k]
#   -b  build directory whose src/ompi holds mca_coll_hieragg.so (default: build)
#   -n  process count (default 4, as the package's own CTest files run them)
#   -s  coll_hieragg_split values; "default" leaves it unset (default: "default virtual:2")
#   -m  modes: exclusive (--mca coll hieragg), beside (coll_hieragg_priority 100), ompi (Open
#       MPI's own stack, no hieragg: the reference) (default: "ompi exclusive")
#   -i  only the programs whose names match this extended regular expression (xdlu, dpb1tst, ...)
#   -t  timeout of one program's mpirun, seconds (default 600)
#   -k  keep the scratch directory (each run's output)
# A program passes when it exits 0 (BLACS: reaches its final BLACS_ABORT test, which ends the
# job with an error on purpose) and reports no failed check (no count of failed residual
# checks or FAILED tests above 0, no case flagged FAILED). The reference (mode ompi, run first)
# is judged alike: a program that fails there too with the same checks failing (a numerical
# tolerance of the tester, say) is reported as such and does not count against hieragg.
# Exit 0: every hieragg run passed or failed as the reference did; 1: one did not; 77: the package is not
# installed (apt-get install scalapack-mpi-test; it pulls in MPICH's runtime library too, but
# leaves Open MPI the default MPI); 2: usage.
set -uo pipefail
cd "$(dirname "$0")/.."
build=build np=4 modes="ompi exclusive" splits="default virtual:2" timeout_s=600 keep=0 only=""
while getopts "b:n:s:m:i:t:k" o; do
  case $o in
    b) build=$OPTARG ;; n) np=$OPTARG ;; s) splits=$OPTARG ;; m) modes=$OPTARG ;;
    i) only=$OPTARG ;; t) timeout_s=$OPTARG ;; k) keep=1 ;;
    *) sed -n '2,24p' "$0" >&2; exit 2 ;;
  esac
done
tests=/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests data=/usr/share/scalapack
if [ ! -d "$tests" ] || [ ! -d "$data" ]; then
  echo "external-scalapack: SKIPPED: $tests is missing (apt-get install scalapack-mpi-test)" >&2
  exit 77
fi
comp=$(cd "$build" 2>/dev/null && pwd)/src/ompi
[ -f "$comp/mca_coll_hieragg.so" ] || { echo "external-scalapack: no $comp/mca_coll_hieragg.so (build first)" >&2; exit 2; }
pkglib=$(ompi_info --path pkglibdir | sed 's/.*: *//')
scratch=$(mktemp -d "${TMPDIR:-/tmp}/hieragg-scalapack.XXXXXX")
((keep)) || trap 'rm -rf "$scratch"' EXIT

# The programs and the directory each must run in (its input files are read from there).
progs=()
declare -A seen
for p in "$tests"/PBLAS/*tst "$tests"/x*; do   # x*btest: BLACS (its own directory links to these)
  [ -x "$p" ] && [ -f "$p" ] || continue
  name=$(basename "$p")
  [ -z "$only" ] || [[ $name =~ $only ]] || continue
  [ -z "${seen[$name]:-}" ] || continue
  seen[$name]=1 progs+=("$p")
done
((${#progs[@]})) || { echo "external-scalapack: no program matches '$only'" >&2; exit 2; }

# verdict LOG RC: "ok" or the reason it failed.
verdict() {
  local log=$1 rc=$2 bad
  if grep -q 'BEGINNING BLACS TESTING' "$log"; then
    grep -q 'The final auxiliary test is for BLACS_ABORT' "$log" || { echo "did not reach its end (rc $rc)"; return; }
  else
    [ "$rc" = 0 ] || { echo "exit status $rc"; return; }
  fi
  # BLACS "n FAILED.", ScaLAPACK "n tests completed and failed residual checks" and per-case
  # "FAILED" lines, PBLAS's summary rows "| PDSWAP total passed failed skipped".
  bad=$(grep -E '(^|[^0-9])[1-9][0-9]* +FAILED|[1-9][0-9]* tests? completed and failed|FAILED *$|^ *\| +P[A-Z0-9]+ +[0-9]+ +[0-9]+ +[1-9]' "$log" |
        head -2)
  [ -z "$bad" ] || { echo "failed checks: $(echo "$bad" | tr -s ' ' | tr '\n' ';')"; return; }
  echo ok
}

status=0
declare -A reference   # program -> the reference's verdict
case " $modes " in *" ompi "*) modes="ompi ${modes//ompi/}" ;; esac
for mode in $modes; do
  for split in $splits; do
    [ "$mode" = ompi ] && [ "$split" != "$(set -- $splits; echo "$1")" ] && continue  # one reference run
    args=(--allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -n "$np")
    case $mode in
      exclusive) args+=(--mca mca_base_component_path "$comp:$pkglib" --mca coll hieragg) ;;
      beside) args+=(--mca mca_base_component_path "$comp:$pkglib" --mca coll_hieragg_priority 100) ;;
      ompi) ;;
      *) echo "external-scalapack: unknown mode $mode" >&2; exit 2 ;;
    esac
    label=$mode
    if [ "$mode" != ompi ]; then
      label+=" split=$split"
      [ "$split" = default ] || args+=(--mca coll_hieragg_split "$split")
    fi
    pass=0 fail=0 as_ref=0 t0=$SECONDS
    for p in "${progs[@]}"; do
      name=$(basename "$p")
      dir=$scratch/run/${name}
      rm -rf "$dir" && mkdir -p "$dir"
      cp "$data"/*.dat "$data"/BLACS/*.dat "$data"/PBLAS/*.dat "$dir"/ 2>/dev/null
      log=$scratch/${mode}.${split//[:,]/_}.$name.log
      (cd "$dir" && timeout -k 10 "$timeout_s" mpirun "${args[@]}" "$p") >"$log" 2>&1
      rc=$?
      v=$(verdict "$log" "$rc")
      [ "$mode" = ompi ] && reference[$name]=$v
      if [ "$v" = ok ]; then
        pass=$((pass + 1))
      elif [ "$mode" != ompi ] && [ "$v" = "${reference[$name]:-}" ]; then
        as_ref=$((as_ref + 1))
        echo "external-scalapack: $label $name: fails as under Open MPI's own stack: $v"
      else
        fail=$((fail + 1))
        [ "$mode" = ompi ] || status=1
        echo "external-scalapack: FAIL $label $name: $v (log $log)"
      fi
    done
    echo "external-scalapack: $label: $pass of $((pass + fail + as_ref)) programs passed," \
         "$as_ref failed as the reference did ($((SECONDS - t0)) s)"
  done
done
((keep)) && echo "external-scalapack: logs kept in $scratch"
exit $status
