#!/usr/bin/env bash
# Instructions per call (callgrind) of small collectives, hieragg against Open MPI's tuned, at a
# root and at a leaf: the per-call software cost that a 1-2 us fabric exposes and a 50 us link hides.
#
# Method. hieragg-bench runs N back-to-back calls of one collective on one node. The measured rank
# alone runs under valgrind --tool=callgrind (MPMD: `-np 1 valgrind ... : -np P-1 bench`), with
# collection on only inside PMPI_<Coll> (--collect-atstart=no --toggle-collect) and the counts
# zeroed after the warm-up call (CALLGRIND_ZERO_STATS in hieragg-bench), so set-up is not counted.
# Waiting is not counted either: a blocking call that waits for its peers spins in opal_progress,
# as often as the other ranks' timing makes it, so bench/callgrind_percall.py drops every idle
# poll from the count, from callgrind's call counts: Ir - (P - W) * I, with P the opal_progress
# calls, W the PML's receive callbacks (one per arriving fragment, kept whole with one poll each)
# and I the cost of one pass besides them (the same profile's inclusive cost of opal_progress minus
# the callbacks', plus the self cost of the wait loop around it, over P). Both stacks are measured
# alike. Ranks that wait (allreduce, barrier) still vary by up to ~15% between runs with very
# different numbers of passes (the polls columns): I is an average over each profile's passes. Two runs of N1 and N2 calls and their
# difference over N2 - N1 remove what remains of set-up (the first timed call compiles hieragg's
# fast path). Instruction counts do not depend on the machine's load.
# Messages: the point-to-point messages the measured rank posts per call (its PML's send and
# receive entries), and "÷ per message", hieragg's instructions per message over tuned's: where the
# two schedules post different numbers of messages at the measured rank (tuned's barrier is linear
# at np 4: its last rank posts 2 messages per call, hieragg's 4), the per-call ratio compares different work.
#
# Plans: hieragg's plan comes from its cost model over the node link measured at the job's set-up,
# which varies with the machine's load, so two jobs of one cell can run different rows (np 8
# barrier: 14 messages at rank 0 in one run, 15 in another). Every hieragg job therefore logs its
# plan (coll_hieragg_verbose 2, printed at the first call, outside the counted calls) and the
# "plan" column gives it; when the N1 and N2 jobs ran different plans the cell is marked
# "plan changed" and its difference is not a per-call count. --force COLL=ROW,... forces rows
# (coll_hieragg_<coll>_algorithm) and HIERAGG_MCA="coll_hieragg_cost_node_alpha A
# coll_hieragg_cost_node_beta B coll_hieragg_cost_node_theta T" fixes the node link (both alpha and
# beta set: nothing measured), so the plan, and the table, repeat.
#
# usage: bash bench/percall-instructions.sh [--nps 4,8] [--colls bcast,reduce,allreduce,barrier]
#                                           [--bytes 8] [--calls 100,300] [--stacks hieragg,tuned]
#                                           [--force COLL=ROW,...] [--before BUILD] [--out DIR] [--publish]
# --before BUILD: also measure the component of another build (column "before").
# --force bcast=knomial,barrier=dissemination: run those rows (hieragg and before stacks).
# --publish: write the table into docs/performance.md between its one pair of percall markers.
# Environment: BUILD_DIR (build), HIERAGG_MCA="name value ...": more MCA settings for hieragg.
# Prints a markdown table (also OUT/percall.md) of instructions per call and hieragg / tuned.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
build=$(cd "$root" && cd "$BUILD_DIR" && pwd)
nps=4,8 colls=bcast,reduce,allreduce,barrier bytes=8 calls=100,300 stacks=hieragg,tuned out=$root/out/percall
before="" publish=0 force=""
while [ $# -gt 0 ]; do
  case "$1" in
    --nps) nps=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --bytes) bytes=$2; shift 2 ;;
    --calls) calls=$2; shift 2 ;;
    --stacks) stacks=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --before) before=$(cd "$2" && pwd); shift 2 ;;
    --force) force=$2; shift 2 ;;
    --publish) publish=1; shift ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
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
if [ -n "$before" ]; then
  [ -f "$before/src/ompi/mca_coll_hieragg.so" ] || { echo "percall-instructions: no component in $before" >&2; exit 1; }
  case ",$stacks," in *,before,*) ;; *) stacks=before,$stacks ;; esac
fi

force_mca=""
for f in ${force//,/ }; do
  case "$f" in
    *=*) force_mca+="--mca coll_hieragg_${f%%=*}_algorithm ${f#*=} " ;;
    *) echo "percall-instructions: --force takes COLL=ROW, not '$f'" >&2; exit 2 ;;
  esac
done

stack_args() {
  case "$1" in
    hieragg) echo "--mca mca_base_component_path $build/src/ompi:$pkglib --mca coll hieragg --mca coll_hieragg_verbose 2 $force_mca${HIERAGG_MCA:+$(set -- $HIERAGG_MCA; while [ $# -ge 2 ]; do printf -- '--mca %s %s ' "$1" "$2"; shift 2; done)}" ;;
    before) echo "--mca mca_base_component_path $before/src/ompi:$pkglib --mca coll hieragg $(stack_args hieragg | sed 's/^.*--mca coll hieragg//')" ;;
    tuned) echo "" ;;
    *) echo "percall-instructions: unknown stack $1" >&2; exit 2 ;;
  esac
}

# profile STACK NP COLL RANK CALLS: runs it; prints the callgrind profile of rank RANK.
profile() {
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
  # LD_BIND_NOW: every symbol bound when the libraries load, so no lazy lookup (thousands of
  # instructions, once per symbol) lands inside the measured window in one job of a pair.
  timeout -k 10 600 mpirun --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 \
    -x LD_BIND_NOW=1 $(stack_args "$stack") "${mpmd[@]}" >"$log" 2>&1 || { echo "percall-instructions: run failed, see $log" >&2; tail -5 "$log" >&2; return 1; }
  grep -q "^CELL $coll .* ok " "$log" || { echo "percall-instructions: no correct CELL line in $log" >&2; return 1; }
  echo "$cg"
}

# plan_of LOG COLL: the plan hieragg printed for COLL in that job ("-" for tuned).
plan_of() {
  sed -n "s/^.*hieragg: $2 on [0-9]* ranks: \([^ ]*\) .*/\1/p" "$1" | head -1 | grep . || echo -
}

table=$out/percall.md
made="Made by \`${HIERAGG_MCA:+HIERAGG_MCA=\"$HIERAGG_MCA\" }bash bench/percall-instructions.sh --nps $nps --colls $colls --calls $calls${force:+ --force $force}\` on $(date -u '+%Y-%m-%d %H:%M') UTC"
{
  echo "$made: instructions per ${bytes}-byte call inside \`PMPI_<Coll>\` without waiting (callgrind; the"
  echo "measured rank alone under valgrind, the others native; idle progress polls removed; (Ir($n2) − Ir($n1)) / $((n2 - n1));"
  echo "Open MPI $(ompi_info --version | awk 'NR==1{print $NF}'), one node). msgs: messages the rank posts per call; ÷ per message: hieragg's"
  echo "instructions per message over tuned's. polls: opal_progress calls per call, idle ones included."
  echo
  printf '| collective | np | rank |'; for s in ${stacks//,/ }; do printf ' %s |' "$s"; done
  printf ' hieragg ÷ tuned |'; for s in ${stacks//,/ }; do printf ' msgs %s |' "$s"; done
  printf ' ÷ per message |'; for s in ${stacks//,/ }; do printf ' polls %s |' "$s"; done
  printf ' plan hieragg |'; echo
  printf '|---|---|---|'; for _ in ${stacks//,/ }; do printf -- '---|---|---|'; done; echo '---|---|---|'
} >"$table"
for np in ${nps//,/ }; do
  for coll in ${colls//,/ }; do
    for rank in 0 $((np - 1)); do
      role=leaf; [ "$rank" = 0 ] && role=root; { [ "$coll" = barrier ] || [ "$coll" = allreduce ]; } && role=rank
      declare -A per=() polls=() msgs=()
      plan=-
      for s in ${stacks//,/ }; do
        a=$(profile "$s" "$np" "$coll" "$rank" "$n1") b=$(profile "$s" "$np" "$coll" "$rank" "$n2")
        read -r _ per[$s] polls[$s] msgs[$s] < <(python3 "$root/bench/callgrind_percall.py" "$a" "$b" "$n1" "$n2")
        if [ "$s" = hieragg ]; then
          p1=$(plan_of "$out/run.$s.np$np.$coll.r$rank.$n1.log" "$coll") p2=$(plan_of "$out/run.$s.np$np.$coll.r$rank.$n2.log" "$coll")
          plan=$p2; [ "$p1" = "$p2" ] || plan="plan changed: $p1 (N=$n1), $p2 (N=$n2)"
        fi
      done
      ratio="" permsg=""
      if [ -n "${per[hieragg]:-}" ] && [ -n "${per[tuned]:-}" ] && [ "${per[tuned]}" -gt 0 ]; then
        ratio=$(awk -v h="${per[hieragg]}" -v t="${per[tuned]}" 'BEGIN{printf "%.2f", h / t}')
        permsg=$(awk -v h="${per[hieragg]}" -v t="${per[tuned]}" -v hm="${msgs[hieragg]}" -v tm="${msgs[tuned]}" \
          'BEGIN{if (hm > 0 && tm > 0) printf "%.2f", (h / hm) / (t / tm)}')
      fi
      { printf '| %s | %s | %s %s |' "$coll" "$np" "$role" "$rank"
        for s in ${stacks//,/ }; do printf ' %s |' "${per[$s]}"; done
        printf ' %s |' "$ratio"
        for s in ${stacks//,/ }; do printf ' %s |' "${msgs[$s]}"; done
        printf ' %s |' "$permsg"
        for s in ${stacks//,/ }; do printf ' %s |' "${polls[$s]}"; done
        printf ' %s |' "${plan//|/\\|}"; echo; } >>"$table"
      unset per polls msgs
    done
  done
done
cat "$table"
if [ "$publish" = 1 ]; then
  doc=$root/docs/performance.md
  # publish_block.py refuses (and leaves the doc unchanged) unless the doc holds exactly one
  # percall pair, so a second, stale copy of the table cannot survive a publish.
  python3 "$root/bench/publish_block.py" "$doc" percall "$table" ||
    { echo "percall-instructions: not published (see above); the table is in $table" >&2; exit 1; }
  echo "percall-instructions: published in $doc"
fi
