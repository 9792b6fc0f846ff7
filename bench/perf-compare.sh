#!/usr/bin/env bash
# The project benchmark: hieragg against Open MPI's tuned (the default) and HAN
# on emulated nodes (bench/emucluster: network namespaces, 50 us / 1 Gbit/s
# links), every collective at 8 B, 64 KiB and 4 MiB, in interleaved runs (run 1:
# hieragg, tuned, HAN; run 2: tuned, HAN, hieragg; ...), t_max like IMB, median
# and spread over the runs, next to the link-bandwidth bound. Writes
# OUT/performance.md (table), OUT/performance.csv and OUT/performance.png.
#
# usage: bash bench/perf-compare.sh [--quick] [--runs R] [--layouts 2x4rr,4x2block]
#                                   [--colls a,b] [--sizes 8,65536,4194304] [--iters 100,20,3]
#                                   [--out DIR] [--publish] [--virtual] [--show-decisions] [--log-plans]
#                                   [--one-node [--nps 4,8]] [--profiles slow,fast,one-node] [--regret] [--sync]
#   default           3 runs, 50/10/3 iterations at 8 B/64 KiB/4 MiB (about 8 minutes)
#   --quick           2 runs, 20/5/2 iterations (about 3 minutes for both layouts)
#   --layouts         NxPrr: N nodes x P ranks round-robin (--map-by node);
#                     NxPblock: N nodes x P ranks in blocks (--map-by slot)
#   --publish         also copy the table and plot into docs/performance.md and docs/images/
#   --virtual         no emulated cluster: one machine, hieragg told the node split
#                     (coll_hieragg_split roundrobin:N / virtual:P); chosen automatically
#                     when network namespaces cannot be created (not root)
#   --one-node        issue 7's one-node check: one machine, no emulated or virtual nodes,
#                     hieragg exclusive (--mca coll hieragg, default split = node, so the
#                     flat rows) against Open MPI's default (tuned) only; ratio = hieragg ÷
#                     tuned; 5 runs, 400/50/10 iterations unless told; layouts 1x4
#                     (--nps 4,8: 1x4 and 1x8)
#   --profiles        network profiles, run one after the other, each into OUT/PROFILE and,
#                     with --publish, into its own section of docs/performance.md, then one
#                     side-by-side table and plot of all of them (section "perf-profiles"):
#                       slow      emulated links of DELAY (50us) one-way and RATE (1gbit)
#                       fast      emulated links left unshaped (plain veth TCP between namespaces:
#                                 -d 0 -r 0), where the software cost of each call decides
#                       one-node  as --one-node (one machine, hieragg against tuned)
#                     default: the one profile the other options name (slow, or one-node)
#   --show-decisions  before the timed runs of each layout, one untimed hieragg job
#                     (1 iteration) prints its decomposition (coll_hieragg_verbose=1)
#                     and the algorithm per call (verbose=2) to OUT/raw/LAYOUT.decisions.log
#   --log-plans       every timed hieragg job logs its measured network and the plan of each
#                     cell (coll_hieragg_verbose=2, printed once per cell, outside the timed
#                     loop's repeats); OUT/plans.md then gives each cell's time per plan over
#                     all runs. The network calibration runs in every job, so on a loaded
#                     machine the plan of one cell can differ between runs: the stack's
#                     median then mixes rows, the per-plan times do not
#   --regret          also race every registry row of each collective, forced by MCA
#                     (coll_hieragg_<coll>_algorithm), in the same interleaved runs: stack
#                     rowK forces each collective's K-th row (`hieragg-plan select` lists them;
#                     rows it says this layout refuses are left out). Implies --log-plans.
#                     OUT/regret.md (bench/regret_report.py) gives per cell auto's plan, its
#                     time, the model's prediction and prediction ÷ measurement, the fastest
#                     forced row and the regret = auto's time ÷ that row's; then per layout
#                     the median and worst regret and the share of predictions within 25%.
#                     Implies --sync: the model predicts one call's latency, so the
#                     prediction is compared with calls timed one at a time
#   --sync            every stack's jobs time each call after a point-to-point barrier
#                     (hieragg-bench --sync 1, the barrier not timed): t_max is one call's
#                     latency. Without it the calls run back to back as in IMB, and a rank
#                     that finishes early (a bcast's root) starts the next call, so a rooted
#                     collective's time is its share of a stream
# Environment: DELAY (50us), RATE (1gbit): the emulated links; BUILD_DIR (build);
#   HIERAGG_MCA="name value ...": MCA settings for the hieragg stack only (a forced row).
#
# A competitor that crashes, hangs (per-job timeout) or returns wrong data gets
# that cell marked CRASH / TIMEOUT / WRONG and the benchmark goes on with the
# remaining cells in a new job. The emulated cluster is global to the machine:
# this script holds /tmp/emucluster.lock from setup to teardown.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BUILD_DIR=${BUILD_DIR:-build}
build=$(cd "$root" && mkdir -p "$BUILD_DIR" && cd "$BUILD_DIR" && pwd)
emu=$root/bench/emucluster

profiles="" publish_as="" runs=3 layouts=2x4rr,4x2block out=$root/out/perf publish=0 virtual=auto decisions=0 logplans=0 regret=0 sync=0 onenode=0 nps=4 runs_set=0 iters_set=0
colls=bcast,allreduce,reduce,allgather,allgatherv,alltoall,gather,scatter,reduce_scatter,barrier,scan,allreduce_inplace
sizes=8,65536,4194304 iters=50,10,3 job_timeout=180
cmdline="bash bench/perf-compare.sh $*"
orig_args=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) runs=2 iters=20,5,2 job_timeout=120; shift ;;
    --runs) runs=$2 runs_set=1; shift 2 ;;
    --one-node) onenode=1 virtual=1; shift ;;
    --profiles) profiles=$2; shift 2 ;;
    --nps) nps=$2; shift 2 ;;
    --layouts) layouts=$2; shift 2 ;;
    --colls) colls=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --iters) iters=$2 iters_set=1; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --publish) publish=1; shift ;;
    --publish-as) publish_as=$2; shift 2 ;;   # internal (--profiles): the profile's own section
    --virtual) virtual=1; shift ;;
    --show-decisions) decisions=1; shift ;;
    --log-plans) logplans=1; shift ;;
    --regret) regret=1 logplans=1 sync=1; shift ;;
    --sync) sync=1; shift ;;
    -h|--help) sed -n '2,59p' "$0"; exit 0 ;;
    *) echo "perf-compare: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

say() { echo "perf-compare: $*" >&2; }

# ---- several network profiles: this script once per profile, then the side-by-side report --
if [ -n "$profiles" ]; then
  pass=() skip=0
  for a in "${orig_args[@]}"; do   # the other options, as given, for every profile
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$a" in
      --profiles|--out) skip=1 ;;
      --one-node|--publish) ;;
      *) pass+=("$a") ;;
    esac
  done
  dirs=()
  for p in ${profiles//,/ }; do
    case "$p" in
      slow) env_p=(DELAY="${DELAY:-50us}" RATE="${RATE:-1gbit}") opt_p=() ;;
      fast) env_p=(DELAY=0 RATE=0) opt_p=() ;;
      one-node) env_p=() opt_p=(--one-node) ;;
      *) say "unknown profile '$p' (slow, fast, one-node)"; exit 2 ;;
    esac
    [ "$publish" = 1 ] && opt_p+=(--publish --publish-as "$p")
    say "=== profile $p"
    env "${env_p[@]}" bash "$0" "${pass[@]}" "${opt_p[@]}" --out "$out/$p"
    dirs+=("$p=$out/$p")
  done
  py=/usr/bin/python3; [ -x "$py" ] || py=python3
  report=(--combine "${dirs[@]}" --out "$out" --command "$cmdline")
  [ "$publish" = 1 ] && report+=(--publish "$root/docs/performance.md" --publish-image "$root/docs/images/performance-profiles.png" --marker perf-profiles)
  "$py" "$root/bench/perf_report.py" "${report[@]}"
  exit 0
fi

# One node: P ranks on this machine, no node split told to hieragg; the stacks are
# hieragg and tuned (HAN has no hierarchy to use on one node).
if [ "$onenode" = 1 ]; then
  layouts=$(for p in ${nps//,/ }; do printf '1x%dblock,' "$p"; done); layouts=${layouts%,}
  [ "$runs_set" = 1 ] || runs=5
  # Scheduling noise of oversubscribed ranks dwarfs 8-byte calls: more iterations per cell.
  [ "$iters_set" = 1 ] || iters=400,50,10
fi

# Unshaped links (the fast profile): the per-call software cost decides the 8-byte cells, so
# more calls per cell, as on one node.
unshaped=0
[ "$(. "$root/bench/emucluster/emu-common.sh"; emu_rate_bps "${RATE:-1gbit}")" = 0 ] &&
  [ "$(. "$root/bench/emucluster/emu-common.sh"; emu_to_us "${DELAY:-50us}")" = 0 ] && unshaped=1
[ "$unshaped" = 1 ] && [ "$onenode" = 0 ] && [ "$iters_set" = 0 ] && iters=200,20,3

# ---- can this machine emulate nodes? -------------------------------------------------
if [ "$virtual" = auto ]; then
  virtual=1
  if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v nsenter >/dev/null; then
    probe=hieragg-perfprobe-$$
    if ip netns add "$probe" 2>/dev/null; then ip netns del "$probe"; virtual=0; fi
  fi
  [ "$virtual" = 1 ] && say "NOTE: cannot create network namespaces (needs root): falling back to VIRTUAL nodes on one machine (no emulated links; the bound column is empty)"
fi

# ---- dependencies (idempotent) and build ------------------------------------------------
need=()
dpkg-query -W -f='${Status}' python3-matplotlib 2>/dev/null | grep -q "install ok installed" || need+=(python3-matplotlib)
if [ "$virtual" = 0 ]; then
  command -v iptables >/dev/null || command -v nft >/dev/null || need+=(iptables)
fi
if ((${#need[@]})); then
  say "installing ${need[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
BUILD_DIR=$build bash "$root/scripts/build.sh" >/dev/null
bench=$build/bench/hieragg-bench
compdir=$build/src/ompi
pkglib=$(ompi_info --path pkglibdir | sed 's/^.*Pkglibdir: *//')
[ -x "$bench" ] && [ -f "$compdir/mca_coll_hieragg.so" ] || { say "build did not produce $bench and $compdir/mca_coll_hieragg.so"; exit 1; }

# HIERAGG_MCA="name value ...": more MCA settings for the hieragg stack only (e.g. a forced
# row, coll_hieragg_allgather_algorithm leader_ring, to race it against tuned and HAN).
hieragg_mca=""
set -- ${HIERAGG_MCA:-}
while [ $# -ge 2 ]; do hieragg_mca+=" --mca $1 $2"; shift 2; done
[ $# -eq 0 ] || { say "HIERAGG_MCA needs name value pairs, got a lone '$1'"; exit 2; }

# The three stacks (with --regret also row1, row2, ...: forced_rows). hieragg is loaded
# from the build tree, never installed. $2: the layout.
stack_args() {
  case "$1" in
    hieragg) echo "--mca mca_base_component_path $compdir:$pkglib --mca coll hieragg $hieragg_mca" ;;
    tuned) echo "" ;;                                   # Open MPI's default selection
    han) echo "--mca coll_han_priority 100" ;;
    row*) echo "--mca mca_base_component_path $compdir:$pkglib --mca coll hieragg $hieragg_mca ${row_mca["$2 $1"]}" ;;
  esac
}

# --regret: stacks row1..rowK of LAYOUT (NODES PPN MAP), each forcing the K-th registry row of
# every collective that has one this layout accepts (hieragg-plan select tells the rows and the
# refusals); the cells of the collectives a stack does not force are skipped in its jobs.
# Sets row_mca, row_skip and layout_stacks; appends "layout stack collective row" lines to
# RAW/forced-rows.txt for bench/regret_report.py.
declare -A row_mca row_skip
forced_rows() {
  local layout=$1 nodes=$2 ppn=$3 map=$4 np=$(($2 * $3)) plan=$build/coll_aggtree/hieragg-plan
  local split=node
  [ "$map" = node ] && [ "$nodes" -gt 1 ] && split=roundrobin:$nodes
  local shape=(-P "$np" --ranks-per-node "$ppn" --split "$split")
  layout_stacks=("${stacks[@]}")
  [ "$regret" = 1 ] || return 0
  [ -x "$plan" ] || { say "--regret needs $plan"; exit 1; }
  local -A rows
  local c k row mca skip most=0 n
  for c in ${colls//,/ }; do
    rows[$c]=$("$plan" select --coll "${c%_inplace}" --algorithm no-such-row 2>&1 | sed -n 's/.*(auto,\(.*\)).*/\1/p' | tr ',' ' ' || true)
    # shellcheck disable=SC2086
    n=$(set -- ${rows[$c]}; echo $#)
    if ((n > most)); then most=$n; fi
  done
  for ((k = 1; k <= most; ++k)); do
    mca="" skip=""
    for c in ${colls//,/ }; do
      # shellcheck disable=SC2086
      row=$(set -- ${rows[$c]}; eval "echo \${$k:-}")
      if [ -n "$row" ] && ! "$plan" select --coll "${c%_inplace}" "${shape[@]}" --size 65536 --algorithm "$row" 2>&1 |
          grep -q 'would be refused'; then
        # allreduce_inplace forces allreduce's parameter to the same row: name it once
        # (mpirun refuses an MCA parameter given twice).
        case "$mca " in
          *" coll_hieragg_${c%_inplace}_algorithm "*) ;;
          *) mca+=" --mca coll_hieragg_${c%_inplace}_algorithm $row" ;;
        esac
        echo "$layout row$k $c $row" >>"$raw/forced-rows.txt"
      else
        for b in ${sizes//,/ }; do skip+="$c:$b,"; done
      fi
    done
    [ -n "$mca" ] || continue
    row_mca["$layout row$k"]=$mca row_skip["$layout row$k"]=${skip%,}
    layout_stacks+=("row$k")
  done
  say "$layout: --regret races ${#layout_stacks[@]} stacks per run (${layout_stacks[*]})"
}
stacks=(hieragg tuned han)
[ "$onenode" = 1 ] && stacks=(hieragg tuned)

raw=$out/raw
rm -rf "$raw"
mkdir -p "$raw"
started=$SECONDS

# run_stack LAYOUT STACK RUN NODES PPN MAP: one job per stack, restarted after a
# crash or timeout without the cells already done or known to crash.
declare -A known_bad   # "layout stack" -> "coll:bytes,..." cells that crashed or hung before
run_stack() {
  local layout=$1 stack=$2 run=$3 nodes=$4 ppn=$5 map=$6 extra=${7:-}
  local log=$raw/$layout.$stack.run$run.log
  [ -n "$extra" ] && log=$raw/$layout.decisions.log
  local skip=${known_bad["$layout $stack"]:-}
  local np=$((nodes * ppn)) hosts args
  for c in ${skip//,/ }; do echo "SKIPPED ${c%%:*} ${c##*:} known-bad" >>"$log"; done
  for _ in 1 2 3 4 5 6; do   # a crash costs one attempt; give up after six
    # shellcheck disable=SC2207
    args=(-np "$np" --bind-to none --mca mpi_yield_when_idle 1 $(stack_args "$stack" "$layout"))
    local done_cells
    done_cells=$(awk '$1=="CELL"||$1=="CRASH"||$1=="TIMEOUT"||$1=="SKIPPED"{printf "%s:%s,", $2, $3}' "$log" 2>/dev/null || true)
    local skip_cells=${done_cells%,}
    [ -n "${row_skip["$layout $stack"]:-}" ] && skip_cells+=${skip_cells:+,}${row_skip["$layout $stack"]}
    local prog=("$bench" --colls "$colls" --sizes "$sizes" --iters "$iters" --skip "$skip_cells")
    [ "$sync" = 1 ] && prog+=(--sync 1)
    [ -n "$extra" ] && args+=(--mca coll_hieragg_verbose 2) && prog+=(--iters 1 --pingpong 0)
    [ -z "$extra" ] && [ "$logplans" = 1 ] && [[ $stack == hieragg || $stack == row* ]] && args+=(--mca coll_hieragg_verbose 2)
    local tmp=$raw/.job.out rc=0 t0=$SECONDS
    if [ "$virtual" = 1 ]; then
      # One machine: hieragg is told where the node boundaries would be.
      if [ "$map" = node ]; then args+=(--map-by node); split=roundrobin:$nodes; else split=virtual:$ppn; fi
      [[ $stack == hieragg || $stack == row* ]] && [ "$onenode" = 0 ] && args+=(--mca coll_hieragg_split "$split")
      timeout -k 10 "$job_timeout" mpirun --allow-run-as-root --oversubscribe "${args[@]}" "${prog[@]}" \
        >"$tmp" 2>&1 || rc=$?
    else
      hosts=$(for ((i = 0; i < nodes; ++i)); do printf 'node%d:%d,' "$i" "$ppn"; done)
      args+=(--host "${hosts%,}" --map-by "$map")
      timeout -k 10 "$job_timeout" "$emu/emu-mpirun" "${args[@]}" "${prog[@]}" {lockfd}>&- >"$tmp" 2>&1 || rc=$?
    fi
    grep -E '^(LAYOUT|PINGPONG|PINGLOCAL|PINGDUPLEX|BEGIN|CELL) ' "$tmp" >>"$log" || true
    # --log-plans: the measured network and each cell's plan, as verbose 2 prints them (perf_report.py reads them),
    # and the measured node link (read by no report: it lets hieragg-plan select recompute a logged pred)
    [ "$logplans" = 1 ] && { grep -E '^\[[^]]*\] hieragg: (network: |node: |[a-z_]+ on [0-9]+ ranks: )' "$tmp" >>"$log" || true; }
    [ -n "$extra" ] && cat "$tmp" >>"$log.verbose"   # BEGIN lines tell which call the verbose lines are about
    # The cell that was running when the job died: BEGIN without its CELL.
    local open
    open=$(awk '$1=="BEGIN"{k=$2" "$3; open[k]=1} $1=="CELL"{delete open[$2" "$3]} END{for(k in open) print k}' "$tmp")
    if [ "$rc" = 0 ] && [ -z "$open" ]; then
      return 0
    fi
    local what=CRASH
    [ "$rc" = 124 ] || [ "$rc" = 137 ] && what=TIMEOUT
    if [ -z "$open" ]; then
      if ! grep -q '^BEGIN ' "$tmp"; then
        say "$layout $stack run $run: job failed (rc $rc) before any cell; output:"
        tail -20 "$tmp" >&2
        return 0
      fi
      # Died after the last cell (e.g. in MPI_Finalize): the cells are complete.
      say "$layout $stack run $run: job exited with $rc after its last cell (ignored)"
      return 0
    fi
    say "$layout $stack run $run: $what in '$open' after $((SECONDS - t0)) s (rc $rc); continuing without it"
    echo "$what $open" >>"$log"
    [ -z "$extra" ] && known_bad["$layout $stack"]+="${open// /:},"
    sed -n '1,400p' "$tmp" | grep -E 'Signal|signal|error|Error' | head -5 | sed 's/^/    /' >&2 || true
  done
}

# ---- the runs -----------------------------------------------------------------------------
cleanup() { [ "$virtual" = 0 ] && "$emu/emu-teardown.sh" >/dev/null 2>&1 || true; }
if [ "$virtual" = 0 ]; then
  exec {lockfd}>/tmp/emucluster.lock
  if ! flock -w 1800 "$lockfd"; then say "/tmp/emucluster.lock still held after 30 min"; exit 1; fi
  trap cleanup EXIT
  trap 'exit 130' INT TERM
fi
for layout in ${layouts//,/ }; do
  if [[ ! $layout =~ ^([0-9]+)x([0-9]+)(rr|block)$ ]]; then say "bad layout '$layout'"; exit 2; fi
  nodes=${BASH_REMATCH[1]} ppn=${BASH_REMATCH[2]}
  map=node; [ "${BASH_REMATCH[3]}" = block ] && map=slot
  if [ "$virtual" = 0 ]; then
    EMU_MEASURE=0 "$emu/emu-setup.sh" -n "$nodes" -s "$ppn" -d "${DELAY:-50us}" -r "${RATE:-1gbit}" \
      {lockfd}>&- >"$raw/$layout.setup.log" 2>&1 || { cat "$raw/$layout.setup.log" >&2; exit 1; }
  fi
  if [ "$decisions" = 1 ]; then
    t0=$SECONDS
    run_stack "$layout" hieragg 0 "$nodes" "$ppn" "$map" decisions
    say "$layout: hieragg's decisions (untimed job, $((SECONDS - t0)) s) in $raw/$layout.decisions.log.verbose"
  fi
  forced_rows "$layout" "$nodes" "$ppn" "$map"
  for ((run = 1; run <= runs; ++run)); do
    for ((k = 0; k < ${#layout_stacks[@]}; ++k)); do   # rotate the order so no stack always goes first
      stack=${layout_stacks[$(((k + run - 1) % ${#layout_stacks[@]}))]}
      t0=$SECONDS
      run_stack "$layout" "$stack" "$run" "$nodes" "$ppn" "$map"
      say "$layout run $run/$runs $stack: $((SECONDS - t0)) s"
    done
  done
  [ "$virtual" = 0 ] && "$emu/emu-teardown.sh" {lockfd}>&- >/dev/null 2>&1
done
say "all runs: $((SECONDS - started)) s"

# ---- the report ---------------------------------------------------------------------------
mode="emulated cluster (bench/emucluster, ${DELAY:-50us} one-way, ${RATE:-1gbit} links)"
[ "$unshaped" = 1 ] && mode="emulated cluster (bench/emucluster) with UNSHAPED links (plain veth TCP between namespaces, no added delay or rate limit)"
[ "$virtual" = 1 ] && mode="VIRTUAL nodes on one machine (no emulated links; hieragg given the node split)"
[ "$onenode" = 1 ] && mode="ONE node (this machine, $(nproc) cores, oversubscribed, mpi_yield_when_idle 1; hieragg exclusive with its default split: the flat rows)"
[ "$sync" = 1 ] && mode+="; each timed call after a point-to-point barrier (--sync: one call's latency, not a back-to-back stream)"
report=(--raw "$raw" --out "$out" --mode "$mode" --command "$cmdline" --runs "$runs" --layouts "$layouts")
[ "$onenode" = 1 ] && report+=(--stacks hieragg,tuned)
if [ "$virtual" = 1 ]; then report+=(--virtual)
else report+=(--link-bps "$(. "$emu/emu-common.sh"; emu_rate_bps "${RATE:-1gbit}")"); fi
# The profile this run publishes as: the one --profiles named, else the one its options give.
profile_name=${publish_as:-$([ "$onenode" = 1 ] && echo one-node || echo slow)}
# Where --publish writes: the profile's own marked section of docs/performance.md and its plot.
if [ "$publish" = 1 ]; then
  case "$profile_name" in
    slow) report+=(--publish "$root/docs/performance.md" --publish-image "$root/docs/images/performance.png" --marker perf-table) ;;
    fast) report+=(--publish "$root/docs/performance.md" --publish-image "$root/docs/images/performance-fast.png" --marker perf-table-fast) ;;
    one-node) report+=(--publish "$root/docs/performance.md" --publish-image "$root/docs/images/performance-onenode.png" --marker perf-onenode) ;;
  esac
fi
# Debian's python3 (its python3-matplotlib), not whatever python3 comes first in PATH.
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" "$root/bench/perf_report.py" "${report[@]}"
# --regret --publish: the regret table goes into the profile's own regret section.
regret_args=(--raw "$raw" --out "$out" --command "$cmdline")
[ "$publish" = 1 ] && regret_args+=(--publish "$root/docs/performance.md"
                                    --marker "regret-$profile_name")
if [ "$regret" = 1 ]; then "$py" "$root/bench/regret_report.py" "${regret_args[@]}"; fi
