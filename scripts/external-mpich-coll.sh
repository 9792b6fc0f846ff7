#!/bin/bash
# Runs MPICH's collective test suite (test/mpi/coll of github.com/pmodels/mpich,
# fetched at run time into a scratch directory, never into this repository)
# against the hieragg component of a build tree, in several configurations, and
# prints a pass/fail table. Needs network access (or HIERAGG_MPICH_SRC pointing
# at an existing MPICH checkout); not part of CI.
#
# usage: scripts/external-mpich-coll.sh [-b BUILDDIR] [-w WORKDIR] [-t TIMEOUT]
#                                       [-c CONFIGS] [-r TEST_REGEX] [-N MAXNP]
#   CONFIGS: comma list of baseline,exclusive,beside,virtual2,roundrobin2 (the default),
#            virtual3, nested (roundrobin:2,virtual:4), seg256 (virtual:2, 256-byte segments)
#   TEST_REGEX: only testlist lines whose text matches (extended regex)
#   MAXNP: skip testlist lines with more processes (default 10)
# Environment: HIERAGG_MPICH_TAG (default v5.0.1) pins the MPICH version;
# HIERAGG_MPICH_SRC uses an existing MPICH source tree instead of cloning.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build work=/tmp/hieragg-mpich-coll tmo=120 configs=baseline,exclusive,beside,virtual2,roundrobin2
filter= maxnp=10
while getopts b:w:t:c:r:N: o; do
  case $o in
    b) build=$(cd "$OPTARG" && pwd) ;; w) work=$OPTARG ;; t) tmo=$OPTARG ;;
    c) configs=$OPTARG ;; r) filter=$OPTARG ;; N) maxnp=$OPTARG ;;
    *) sed -n 2,15p "$0"; exit 2 ;;
  esac
done
tag=${HIERAGG_MPICH_TAG:-v5.0.1}
mkdir -p "$work"
src=${HIERAGG_MPICH_SRC:-$work/mpich}
if [ ! -d "$src/test/mpi/coll" ]; then
  echo "== cloning MPICH $tag (sparse: test/mpi) into $src"
  rm -rf "$src"
  git clone --quiet --depth 1 --branch "$tag" --filter=blob:none --sparse \
      https://github.com/pmodels/mpich "$src" || { echo "clone failed (network?)"; exit 2; }
  git -C "$src" sparse-checkout set test/mpi || exit 2
fi
t=$src/test/mpi
obj=$work/obj; bin=$work/bin; logs=$work/logs
mkdir -p "$obj/gen" "$bin" "$logs"

# The headers MPICH's configure would generate, reduced to what the coll tests read.
cat > "$obj/gen/mpitestconf.h" <<'H'
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_LONG_INT 1
#define HAVE__BOOL 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_WIN_CREATE 1
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NONE 0
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
#define TEST_NEIGHB_COLL 1
H
: > "$obj/gen/mtest_mpix.h"
cp "$obj/gen/mpitestconf.h" "$obj/gen/dtpoolsconf.h"
mkdir -p "$obj/dtpools/inc" && cp "$obj/gen/dtpoolsconf.h" "$obj/dtpools/dtpoolsconf.h"

inc=(-I"$obj/gen" -I"$t/include" -I"$t/dtpools/include")
types='MPI_INT,MPI_DOUBLE,MPI_CHAR,MPI_LONG,MPI_FLOAT,MPI_SHORT'
if [ ! -f "$obj/libmtest.a" ]; then
  echo "== building MPICH's test utilities"
  (
    set -e
    cd "$obj"
    for f in "$t"/util/mtest.c "$t"/util/mtest_common.c "$t"/util/mtest_single.c "$t"/util/dtypes.c; do
      mpicc -O1 -w "${inc[@]}" -c "$f" -o "$(basename "$f" .c).o"
    done
    mpicc -O1 -w "${inc[@]}" -c "$t/util/run_mpitests.c" -o run_mpitests.o
    for f in "$t"/dtpools/src/*.c; do
      mpicc -O1 -w "${inc[@]}" -I"$obj/dtpools/inc" "-DDTP_MPI_DATATYPE=$types" \
            -c "$f" -o "dtp_$(basename "$f" .c).o"
    done
    ar rcs libmtest.a mtest.o mtest_common.o mtest_single.o dtypes.o dtp_*.o
  ) || { echo "building the test utilities failed"; exit 2; }
fi

build_test() {   # name -> binary path (empty on failure)
  local name=$1 srcf=$t/coll/$1.c extra=()
  case $name in
    uoplong_large) srcf=$t/coll/uoplong.c extra=(-DOP_LARGE) ;;
    bcast_comm_world_only) srcf=$t/coll/bcast.c extra=(-DBCAST_COMM_WORLD_ONLY) ;;
  esac
  # Open MPI 4.1 has the persistent collectives as the pcollreq extension (MPIX_*_init,
  # the MPI-4 signatures): the p_* tests call them under their MPI-4 names.
  if [[ $name == p_* ]] && [ "${ompi_major:-4}" -lt 5 ]; then
    extra+=(-include mpi.h -include mpi-ext.h)
    local f
    for f in $(grep -oh 'MPI_[A-Za-z_]*_init\b' "$srcf" | sort -u); do
      [ "$f" = MPI_Send_init ] || [ "$f" = MPI_Recv_init ] || extra+=("-D$f=MPIX_${f#MPI_}")
    done
  fi
  [ -x "$bin/$name" ] && { echo "$bin/$name"; return; }
  [ -f "$srcf" ] || return
  local runobj=()
  grep -q '^int run(const char \*arg)' "$srcf" && runobj=("$obj/run_mpitests.o")
  # A few tests still call MPI_Errhandler_set (removed in MPI 3.0; Open MPI's mpi.h
  # turns it into a static assertion): map it to its replacement.
  if mpicc -O1 -w "${inc[@]}" "${extra[@]}" -DOMPI_OMIT_MPI1_COMPAT_DECLS=1 \
        -DOMPI_REMOVED_USE_STATIC_ASSERT=0 -DMPI_Errhandler_set=MPI_Comm_set_errhandler \
        "$srcf" "${runobj[@]}" "$obj/libmtest.a" -lm -o "$bin/$name" 2> "$logs/build-$name.log"; then
    echo "$bin/$name"
  fi
}

pkglib=$(ompi_info --path pkglibdir --parsable 2>/dev/null | sed 's/.*:pkglibdir://')
[ -n "$pkglib" ] || pkglib=$(ompi_info | awk -F': ' '/Pkglibdir/ {print $2}' | tr -d ' ')
ompi_major=$(mpicc --showme:version 2>&1 | grep -o 'Open MPI [0-9]*' | grep -o '[0-9]*$')
comp="$build/src/ompi"
base=(--allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
config_args() {
  case $1 in
    baseline) echo "" ;;
    exclusive) echo "--mca mca_base_component_path $comp:$pkglib --mca coll hieragg" ;;
    beside) echo "--mca mca_base_component_path $comp:$pkglib --mca coll_hieragg_priority 100" ;;
    virtual2) echo "--mca mca_base_component_path $comp:$pkglib --mca coll hieragg --mca coll_hieragg_split virtual:2" ;;
    roundrobin2) echo "--mca mca_base_component_path $comp:$pkglib --mca coll hieragg --mca coll_hieragg_split roundrobin:2" ;;
    virtual3) echo "--mca mca_base_component_path $comp:$pkglib --mca coll hieragg --mca coll_hieragg_split virtual:3" ;;
    nested) echo "--mca mca_base_component_path $comp:$pkglib --mca coll hieragg --mca coll_hieragg_split roundrobin:2,virtual:4" ;;
    seg256) echo "--mca mca_base_component_path $comp:$pkglib --mca coll hieragg --mca coll_hieragg_split virtual:2 --mca coll_hieragg_segment_size 256" ;;
  esac
}
export PMIX_MCA_mca_base_component_show_load_errors=0

# testlist.in, plus the derived-datatype bcast lines MPICH's autogen would generate
# into testlist.dtp (maint/dtp-test-config.txt), with a few basic types and counts.
{
  cat "$t/coll/testlist.in"
  seed=1
  for prog in "bcast 4" "bcast_comm_world_only 10"; do
    for ty in MPI_INT MPI_DOUBLE MPI_CHAR MPI_SHORT; do
      for cnt in 1 17 512 65530; do
        ts=16; [ "$cnt" -gt 1000 ] && ts=4
        echo "$prog arg=-type=$ty arg=-count=$cnt arg=-seed=$seed arg=-testsize=$ts"
        seed=$((seed + 1))
      done
    done
  done
} > "$work/testlist"

IFS=, read -r -a cfgs <<< "$configs"
declare -A pass fail
results=$work/results.txt; : > "$results"
printf '%-44s' test; for c in "${cfgs[@]}"; do printf ' %-11s' "$c"; done; echo
while read -r line; do
  case $line in ''|'#'*) continue ;; esac
  [ -n "$filter" ] && ! [[ $line =~ $filter ]] && continue
  set -- $line
  name=$1 np=$2; shift 2
  args=() skip=
  for a in "$@"; do
    case $a in
      arg=*) args+=("${a#arg=}") ;;
      env=*|timeLimit=*|mem=*|xfail=*|resultTest=*) case $a in env=*|mem=*) skip=$a ;; esac ;;
      mpiversion=*) [ "${a#mpiversion=}" = 4.0 ] && [ "${ompi_major:-4}" -lt 5 ] && skip="needs MPI 4" ;;
    esac
  done
  [ "$np" -gt "$maxnp" ] && skip="np $np > $maxnp"
  case $name in
    coll_large) [ "${ompi_major:-4}" -lt 5 ] && skip="MPI_*_c large-count bindings need MPI 4 (Open MPI 5)" ;;
  esac
  label="$name np$np${args[*]:+ ${args[*]}}"
  printf '%-44s' "$label"
  if [ -n "$skip" ]; then echo " skipped ($skip)"; echo "$label|skip|$skip" >> "$results"; continue; fi
  exe=$(build_test "$name")
  if [ -z "$exe" ]; then echo " build-failed (see $logs/build-$name.log)"; echo "$label|buildfail" >> "$results"; continue; fi
  row="$label"
  for c in "${cfgs[@]}"; do
    log="$logs/$(echo "$label" | tr ' =/' '___').$c.log"
    start=$(date +%s.%N)
    ( cd "$t/coll" && timeout "$tmo" mpirun "${base[@]}" $(config_args "$c") -np "$np" "$exe" "${args[@]}" ) < /dev/null > "$log" 2>&1
    rc=$?
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    if [ $rc -eq 124 ]; then r=HANG
    elif [ $rc -ne 0 ]; then r=FAIL
    elif grep -q "No Errors" "$log" && ! grep -q 'coll:hieragg: WARNING' "$log"; then r=ok
    else r=FAIL
    fi
    [ "$r" = ok ] && pass[$c]=$(( ${pass[$c]:-0} + 1 )) || fail[$c]=$(( ${fail[$c]:-0} + 1 ))
    printf ' %-11s' "$r($(printf %.0f "$secs")s)"
    row+="|$c=$r:$secs"
  done
  echo; echo "$row" >> "$results"
done < "$work/testlist"
echo
for c in "${cfgs[@]}"; do echo "$c: ${pass[$c]:-0} passed, ${fail[$c]:-0} failed/hung"; done
echo "logs: $logs  results: $results"
