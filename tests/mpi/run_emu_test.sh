#!/bin/bash
# Runs one MPI test program on emulated nodes (bench/emucluster: network
# namespaces, one orted per "node", TCP between nodes over shaped links) with the
# freshly built component, and checks that the job really spanned the nodes.
#
# usage: run_emu_test.sh -e EMUCLUSTER_DIR -N NODES -p RANKS_PER_NODE -M node|slot
#                        -m exclusive|beside -c COMPONENT_DIR -d DEFAULT_COMPONENT_PATH
#                        [-v VERBOSE] [-P NAME=VALUE]... [-F PROVIDER] [-w EXPECTED_WARNINGS]
#                        [-r WARNING_REGEX] [-o OUTPUT_REGEX]... [-T PML] -- PROGRAM [ARGS...]
#   -M node: round-robin placement (--map-by node); slot: blocks of consecutive ranks.
#   -v: coll_hieragg_verbose (default 1); -P: one more MCA parameter (repeatable).
#   -F: offload over this libfabric provider ('+' for ';'), on the nodes' emu0 links
#       (FI_TCP_IFACE / FI_SOCKETS_IFACE); skipped (77) without it (run_offload_test.sh
#       decides, on loopback, before the cluster is built).
#   -w/-r/-o: as run_mpi_test.sh (default: no warning).
#   -T: run on another PML, cm-ofi or ucx (pml_args.sh), over the nodes' emu0 links.
# Environment: EMU_DELAY (50us), EMU_RATE (1gbit): the link settings;
#   HIERAGG_EMU_REQUIRED=1 turns "cannot create namespaces" from a skip into a failure;
#   EMU_LOCK_WAIT (900): seconds to wait for /tmp/emucluster.lock.
#
# Exit 0 iff the cluster came up, mpirun exited 0, the output has no
# "coll:hieragg: WARNING" line, hieragg's verbose decomposition of
# MPI_COMM_WORLD shows "node: NODES groups of size RANKS_PER_NODE", and the
# Nodes placement test ran and passed, the automatic calibration of the node link printed
# one outcome line (measured or rejected twice), and that of the network link
# exactly one line of either outcome; a measurement's alpha and beta fit the shaped link (EMU_DELAY one way plus
# the TCP and shaping overhead: 30..1000 us when EMU_DELAY is 50us; 1gbit: 2..50 ns/B;
# other settings and other PMLs than ob1 skip the range check). Exit 77 (CTest: skipped) when this
# machine cannot create network namespaces, after saying so loudly.
set -u
emu= nodes=2 ppn=3 map=node mode=exclusive compdir= defpath= verbose=1 provider= want=0 regex=
extra=() outputs=() pml=
while [ $# -gt 0 ]; do
  case "$1" in
    -e) emu=$2; shift 2 ;;
    -N) nodes=$2; shift 2 ;;
    -p) ppn=$2; shift 2 ;;
    -M) map=$2; shift 2 ;;
    -m) mode=$2; shift 2 ;;
    -c) compdir=$2; shift 2 ;;
    -d) defpath=$2; shift 2 ;;
    -v) verbose=$2; shift 2 ;;
    -P) extra+=(--mca "${2%%=*}" "${2#*=}"); shift 2 ;;
    -F) provider=${2//+/;}; shift 2 ;;
    -w) want=$2; shift 2 ;;
    -r) regex=$2; shift 2 ;;
    -o) outputs+=("$2"); shift 2 ;;
    -T) pml=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_emu_test.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
np=$((nodes * ppn))
t0=$SECONDS
pml_mpirun_args=()
. "$(dirname "$0")/pml_args.sh"
pml_args "$pml" emu0 || exit 2

skip() {
  local why=$1
  {
    echo "##################################################################"
    echo "## run_emu_test.sh: MULTI-NODE TEST NOT RUN: $why"
    echo "## (needs root, network namespaces, iproute2, util-linux, iptables or nft;"
    echo "##  scripts/install-deps.sh installs the packages)"
    echo "##################################################################"
  } >&2
  if [ "${HIERAGG_EMU_REQUIRED:-0}" = 1 ]; then echo "run_emu_test.sh: FAIL: HIERAGG_EMU_REQUIRED=1" >&2; exit 1; fi
  exit 77
}
[ "$(id -u)" = 0 ] || skip "not root"
for t in ip tc nsenter unshare cc flock; do command -v $t >/dev/null || skip "$t not found"; done
command -v iptables >/dev/null || command -v nft >/dev/null || command -v iptables-legacy >/dev/null \
  || skip "neither iptables nor nft found"
probe=hieragg-emuprobe-$$
ip netns add "$probe" 2>/dev/null || skip "cannot create a network namespace (ip netns add failed)"
ip netns del "$probe" 2>/dev/null

case "$map" in node) maparg=(--map-by node) ;; slot) maparg=(--map-by slot) ;;
  *) echo "run_emu_test.sh: -M must be node or slot" >&2; exit 2 ;; esac
case "$mode" in exclusive) modearg=(--mca coll hieragg) ;; beside) modearg=(--mca coll_hieragg_priority 100) ;;
  *) echo "run_emu_test.sh: -m must be exclusive or beside" >&2; exit 2 ;; esac

# One user of the emulated cluster at a time (its namespace names are global).
# Descriptors above 2 are not passed to the cluster's processes (see below), so
# the lock goes with this script.
exec {lockfd}>/tmp/emucluster.lock
if ! flock -w "${EMU_LOCK_WAIT:-900}" "$lockfd"; then
  echo "run_emu_test.sh: FAIL: /tmp/emucluster.lock still held after ${EMU_LOCK_WAIT:-900} s" >&2
  exit 1
fi
out=$(mktemp)
cleanup() {
  local t=$SECONDS
  "$emu/emu-teardown.sh" >/dev/null 2>&1 || "$emu/emu-teardown.sh"
  echo "run_emu_test.sh: teardown $((SECONDS - t)) s"
  rm -f "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# emu-setup.sh first removes whatever a previous run left behind.
ts=$SECONDS
if ! EMU_MEASURE=0 "$emu/emu-setup.sh" -n "$nodes" -s "$ppn" -d "${EMU_DELAY:-50us}" -r "${EMU_RATE:-1gbit}" \
    {lockfd}>&-; then
  echo "run_emu_test.sh: FAIL: emu-setup.sh failed"
  exit 1
fi
echo "run_emu_test.sh: setup $((SECONDS - ts)) s ($nodes nodes, ${EMU_DELAY:-50us}, ${EMU_RATE:-1gbit})"

hosts=$(for ((i = 0; i < nodes; ++i)); do printf 'node%d:%d,' "$i" "$ppn"; done)
args=(-np "$np" --host "${hosts%,}" "${maparg[@]}" --bind-to none
      --mca mpi_yield_when_idle 1
      --mca mca_base_component_path "$compdir:$defpath"
      "${modearg[@]}" --mca coll_hieragg_verbose "$verbose" "${extra[@]}"
      -x HIERAGG_TEST_NODES="$nodes" -x HIERAGG_TEST_MAP="$map")
if [ -n "$provider" ]; then
  args+=(--mca coll_hieragg_ofi_provider "$provider" -x FI_TCP_IFACE=emu0 -x FI_SOCKETS_IFACE=emu0)
fi
[ -n "${HIERAGG_TEST_WATCHDOG:-}" ] && args+=(-x HIERAGG_TEST_WATCHDOG)
args+=("${pml_mpirun_args[@]}")
echo "+ emu-mpirun ${args[*]} $*"
tr=$SECONDS
# In the background and waited for, so that a TERM/INT (CTest's timeout, Ctrl-C)
# runs the teardown at once instead of after mpirun.
# Another PML: emu-mpirun's own pml/btl choice (ob1 over tcp on the nodes' links) stays out.
EMU_TRANSPORT=$([ -n "$pml" ] && [ "$pml" != ob1 ] && echo 0 || echo 1) \
  "$emu/emu-mpirun" "${args[@]}" "$@" {lockfd}>&- > "$out" 2>&1 &
wait $!
rc=$?
# The verbose decomposition lines are many (one per communicator): show the rest.
grep -v -e '^\[[^]]*\] hieragg: communicator of ' -e '^  [a-z].*: [0-9]* \(groups\?\|leaders\)' "$out"
echo "run_emu_test.sh: mpirun $((SECONDS - tr)) s"

status=0
if [ "$rc" -ne 0 ]; then
  echo "run_emu_test.sh: FAIL: mpirun exited with $rc"
  status=1
fi
got=$(grep -c 'coll:hieragg: WARNING' "$out")
if [ "$got" -ne "$want" ]; then
  echo "run_emu_test.sh: FAIL: $got line(s) with 'coll:hieragg: WARNING', expected $want"
  status=1
fi
if [ -n "$regex" ] && grep 'coll:hieragg: WARNING' "$out" | grep -qvE -- "$regex"; then
  echo "run_emu_test.sh: FAIL: a warning does not match '$regex'"
  status=1
fi
for o in "${outputs[@]}"; do
  if ! grep -qE -- "$o" "$out"; then
    echo "run_emu_test.sh: FAIL: no output line matches '$o'"
    status=1
  fi
done
# hieragg's own view of MPI_COMM_WORLD (the first communicator of np ranks that
# world rank 0 describes): NODES node groups of RANKS_PER_NODE.
world=$(grep -m1 -A1 "hieragg: communicator of $np ranks (world rank 0 is rank 0)" "$out")
echo "run_emu_test.sh: hieragg saw: ${world//$'\n'/ |}"
if ! grep -q "^  node: $nodes groups of size $ppn\$" <<<"$world"; then
  echo "run_emu_test.sh: FAIL: hieragg's decomposition of MPI_COMM_WORLD is not 'node: $nodes groups of size $ppn'"
  status=1
fi
if ! grep -q '^\[       OK \] Nodes.SharedSplitMatchesPlacement' "$out"; then
  echo "run_emu_test.sh: FAIL: the placement test Nodes.SharedSplitMatchesPlacement did not run and pass"
  status=1
fi
# The node and network links measured at setup (LinkCalibrationStage.cpp): one outcome line
# each per job (MPI_COMM_WORLD measures; later communicators take the agreed value, or the
# rejection, from their identity records). A loaded machine may reject a measurement twice,
# the documented fallback: either outcome counts, the range check applies to a measurement.
calib=$(grep -E 'hieragg: network: alpha=[0-9.]+ us beta=[0-9.]+ ns/B exchange=[0-9.]+ us \(measured at setup, [0-9]+ leaders\)' "$out")
ncalib=$(grep -c . <<<"$calib")
nrejected=$(grep -Ec 'hieragg: network: calibration rejected twice' "$out")
nnode=$(grep -Ec 'hieragg: node: (alpha=.*\(measured at setup in|calibration rejected twice)' "$out")
echo "run_emu_test.sh: calibration: ${calib:-none} ($nrejected rejected; node: $nnode outcome line(s))"
wantnode=$((ppn >= 2 ? 1 : 0))  # a node link to measure: two ranks on one node
if [ "$nnode" -ne "$wantnode" ]; then
  echo "run_emu_test.sh: FAIL: $nnode node calibration outcome line(s) 'hieragg: node: ...', expected $wantnode"
  status=1
fi
if [ $((ncalib + nrejected)) -ne 1 ]; then
  echo "run_emu_test.sh: FAIL: $ncalib measured and $nrejected rejected network calibration line(s), expected 1 in all"
  status=1
# The range check is the ob1 entries' (they test the calibration): tcp;ofi_rxm and UCX's tcp
# copy more per byte, and on a loaded machine beta went past 100 ns/B with them.
elif [ "$ncalib" -eq 1 ] && [ "${EMU_DELAY:-50us}" = 50us ] && [ "${EMU_RATE:-1gbit}" = 1gbit ] && [ -z "${pml#ob1}" ]; then
  # The model's beta follows alpha (the line goes on with the eager beta, the rendezvous, ...).
  a=$(sed -E 's/.*alpha=([0-9.]+) us.*/\1/' <<<"$calib") b=$(sed -E 's/.*alpha=[0-9.]+ us beta=([0-9.]+) ns.*/\1/' <<<"$calib")
  e=$(sed -E 's/.*exchange=([0-9.]+) us.*/\1/' <<<"$calib")
  if ! awk -v a="$a" -v b="$b" 'BEGIN { exit !(a >= 30 && a <= 1000 && b >= 2 && b <= 50) }'; then
    echo "run_emu_test.sh: FAIL: measured alpha=$a us beta=$b ns/B, outside 30..1000 us / 2..50 ns/B for a 50 us, 1 Gbit/s link"
    status=1
  fi
  # An exchange round carries a one-way message: never under alpha (LinkCalibration.hpp).
  if ! awk -v a="$a" -v e="$e" 'BEGIN { exit !(e >= a) }'; then
    echo "run_emu_test.sh: FAIL: measured exchange round $e us under alpha $a us"
    status=1
  fi
fi
[ "$status" -eq 0 ] && echo "run_emu_test.sh: OK ($nodes nodes x $ppn ranks, map-by $map, mode=$mode${pml:+, pml=$pml}) in $((SECONDS - t0)) s"
exit $status
