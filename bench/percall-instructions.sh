#!/usr/bin/env bash
# Instructions per call (callgrind) of small collectives, hieragg against Open MPI's tuned, at a
# root and at a leaf: the per-call software cost that a 1-2 us fabric exposes and a 50 us link hides.
#
# Method. hieragg-bench runs N back-to-back calls of one collective on one node. The measured rank
# alone runs under valgrind --tool=callgrind (MPMD: `-np 1 valgrind ... : -np P-1 bench`), with
# collection on only inside PMPI_<Coll> (--collect-atstart=no --toggle-collect). Valgrind slows that
# rank ~50x, so the native ranks are always ahead of it: what it receives has arrived before it
# asks, and a reply it waits for comes back within a few of its own progress polls; the spin while
# waiting, which a blocking call's total would otherwise include, is thereby kept to a handful of
# polls, and the same holds for both stacks. Two runs of N1 and N2 calls and their difference
# divided by N2 - N1 remove set-up (first-call decomposition, caches, connections). Instruction
# counts do not depend on the machine's load.
#
# usage: bash bench/percall-instructions.sh [--nps 4,8] [--colls bcast,reduce,allreduce,barrier]
#                                           [--bytes 8] [--calls 200,600] [--stacks hieragg,tuned]
#                                           [--out DIR]
# Environment: BUILD_DIR (build), HIERAGG_MCA="name value ...": more MCA settings for hieragg.
# Prints a markdown table (also OUT/percall.md) of instructions per call and hieragg / tuned.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
build=$(cd "$root" && cd "$BUILD_DIR" && pwd)
nps=4,8 colls=bcast,reduce,allreduce,barrier bytes=8 calls=200,600 stacks=hieragg,tuned out=$root/out/percall
while [ $# -gt 0 ]; do
  case "$1" in
    --nps) nps=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --stacks) stacks=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "percall-instructions: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
n1=${calls%,*} n2=${calls#*,}
[ "$n2" -gt "$n1" ] 2>/dev/null || { echo "percall-instructions: --calls N1,N2 needs N2 > N1" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "percall-instructions: valgrind is not installed" >&2; exit 1; }
bench=$build/bench/hieragg-bench
[ -x "$bench" ] && [ -f "$build/src/ompi/mca_coll_hieragg.so" ] ||
  { echo "percall-instructions: build $build first (scripts/build.sh)" >&2; exit 1; }
pkglib=$(ompi_info --path pkglibdir | sed 's/^.*Pkglibdir: *//')
mkdir -p "$out"

stack_args() {
  case "$1" in
    hieragg) echo "--mca mca_base_component_path $build/src/ompi:$pkglib --mca coll hieragg ${HIERAGG_MCA:+$(set -- $HIERAGG_MCA; while [ $# -ge 2 ]; do printf -- '--mca %s %s ' "$1" "$2"; shift 2; done)}" ;;
    tuned) echo "" ;;
    *) echo "percall-instructions: unknown stack $1" >&2; exit 2 ;;
  esac
}

# instructions STACK NP COLL RANK CALLS: Ir collected inside PMPI_<Coll> on rank RANK.
instructions() {
  local stack=$1 np=$2 coll=$3 rank=$4 n=$5 fn cg log
  fn=PMPI_$(echo "${coll:0:1}" | tr a-z A-Z)${coll:1}
  cg=$out/cg.$stack.np$np.$coll.r$rank.$n.out log=$out/run.$stack.np$np.$coll.r$rank.$n.log
  local prog=("$bench" --colls "$coll" --sizes "$bytes" --iters "$n" --pingpong 0)
  local vg=(valgrind --tool=callgrind --collect-atstart=no "--toggle-collect=$fn" "--callgrind-out-file=$cg")
  local mpmd=()
  [ "$rank" -gt 0 ] && mpmd+=(-np "$rank" "${prog[@]}" :)
  mpmd+=(-np 1 "${vg[@]}" "${prog[@]}")
  [ "$rank" -lt $((np - 1)) ] && mpmd+=(: -np $((np - 1 - rank)) "${prog[@]}")
  # shellcheck disable=SC2046
  timeout -k 10 600 mpirun --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
    $(stack_args "$stack") "${mpmd[@]}" >"$log" 2>&1 || { echo "percall-instructions: run failed, see $log" >&2; tail -5 "$log" >&2; return 1; }
  grep -q "^CELL $coll .* ok " "$log" || { echo "percall-instructions: no correct CELL line in $log" >&2; return 1; }
  awk '/^(summary|totals):/ {print $2; exit}' "$cg"
}

table=$out/percall.md
{
  echo "Instructions per ${bytes}-byte call inside \`PMPI_<Coll>\` (callgrind; the measured rank alone under"
  echo "valgrind, the others native; (Ir($n2 calls) − Ir($n1 calls)) / $((n2 - n1)); Open MPI $(ompi_info --version | awk 'NR==1{print $NF}'), one node)."
  echo
  printf '| collective | np | rank |'; for s in ${stacks//,/ }; do printf ' %s |' "$s"; done; echo ' hieragg ÷ tuned |'
  printf '|---|---|---|'; for _ in ${stacks//,/ }; do printf -- '---|'; done; echo '---|'
} >"$table"
for np in ${nps//,/ }; do
  for coll in ${colls//,/ }; do
    for rank in 0 $((np - 1)); do
      role=leaf; [ "$rank" = 0 ] && role=root; [ "$coll" = barrier ] || [ "$coll" = allreduce ] && role=rank
      declare -A per=()
      for s in ${stacks//,/ }; do
        a=$(instructions "$s" "$np" "$coll" "$rank" "$n1") b=$(instructions "$s" "$np" "$coll" "$rank" "$n2")
        per[$s]=$(( (b - a) / (n2 - n1) ))
      done
      ratio=""
      [ -n "${per[hieragg]:-}" ] && [ -n "${per[tuned]:-}" ] && [ "${per[tuned]}" -gt 0 ] &&
        ratio=$(awk -v h="${per[hieragg]}" -v t="${per[tuned]}" 'BEGIN{printf "%.2f", h / t}')
      { printf '| %s | %s | %s %s |' "$coll" "$np" "$role" "$rank"
        for s in ${stacks//,/ }; do printf ' %s |' "${per[$s]}"; done; echo " $ratio |"; } >>"$table"
      unset per
    done
  done
done
cat "$table"
