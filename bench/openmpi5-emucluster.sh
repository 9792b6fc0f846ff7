#!/usr/bin/env bash
# hieragg vs Open MPI 5.0's HAN and tuned across emulated nodes. The emulated
# cluster (bench/emucluster) is set up on the host; prterun and the
# prted daemons run inside the Debian 13 chroot of scripts/openmpi5.sh (which
# must have built this tree once) and enter each node's network and UTS
# namespaces with nsenter, so each namespace is one node to Open MPI 5.
# NODES x PER_NODE ranks placed round-robin (--map-by node), default
# coll_hieragg_split=node; RUNS jobs per configuration, alternated:
#   han:   Open MPI 5's default selection (HAN, priority 35, wins multi-node)
#   tuned: HAN excluded (--mca coll ^han)
# Each job is one hieragg-compare run (hieragg vs that stack interleaved); the
# median over jobs of default_us / hieragg_us is printed. Root only; holds
# /tmp/emucluster.lock throughout and tears the cluster down on exit.
# env: NODES PER_NODE RUNS ITERS SIZES DELAY RATE, EXTRA_MPIRUN_ARGS, KEEP_LOGS=DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
emu=${EMU_DIR:-$src/bench/emucluster}
root=${HIERAGG_CHROOT:-/var/cache/hieragg/trixie}
NODES=${NODES:-2} PER_NODE=${PER_NODE:-4} RUNS=${RUNS:-3} ITERS=${ITERS:-20}
SIZES=${SIZES:-8,1024,65536,1048576}
state=/run/emucluster net=10.77.0
out=$(mktemp -d)

exec 8>/tmp/emucluster.lock
flock 8
"$emu/emu-setup.sh" -n "$NODES" -d "${DELAY:-50us}" -r "${RATE:-1gbit}" -s "$PER_NODE" >/dev/null
trap '"$emu/emu-teardown.sh" >/dev/null 2>&1 || true; rm -rf "$out"' EXIT

# prterun's ssh agent inside the chroot: the node's namespaces instead of ssh.
install -D -m 755 "$emu/chroot-emu-agent" "$root/usr/local/bin/hieragg-emu-agent"

hosts=$(for ((i = 0; i < NODES; ++i)); do printf 'node%d:%d,' "$i" "$PER_NODE"; done)
# shellcheck disable=SC2016
job='cd /build'"$src"' && nsenter --net=/run/netns/emu-head --uts='"$state"'/uts/emuhead \
  mpirun --allow-run-as-root --oversubscribe -np '"$((NODES * PER_NODE))"' --host '"${hosts%,}"' \
  --map-by node --bind-to none --prtemca plm_ssh_agent /usr/local/bin/hieragg-emu-agent \
  --prtemca plm_ssh_no_tree_spawn 1 --prtemca oob_tcp_if_include '"$net"'.0/24 \
  --mca pml ob1 --mca btl self,sm,tcp --mca btl_tcp_if_include '"$net"'.0/24 --mca mpi_yield_when_idle 1 \
  --mca mca_base_component_path $PWD/src/ompi:$(ompi_info --path pkglibdir | sed "s/.*: *//") \
  --pmixmca mca_base_component_show_load_errors 0 \
  --mca coll_hieragg_priority 100 '"${EXTRA_MPIRUN_ARGS:-}"' "$@" bench/hieragg-compare --iters '"$ITERS"' --sizes '"$SIZES"
export PMIX_MCA_mca_base_component_show_load_errors=0
export HIERAGG_CHROOT_BINDS="/run/netns $state"
for ((r = 0; r < RUNS; ++r)); do
  for cfg in han tuned; do
    extra=()
    [ "$cfg" = tuned ] && extra=(--mca coll ^han)
    bash "$src/scripts/openmpi5.sh" -- bash -c "$job" _ "${extra[@]}" >"$out/$cfg.$r" 2>&1 || true
  done
done
for cfg in han tuned; do
  echo "== $cfg (Open MPI 5.0.7, $NODES emulated nodes x $PER_NODE, $RUNS jobs): median over jobs of ${cfg}_us / hieragg_us"
  printf "%-10s %10s %12s %12s %8s\n" collective bytes hieragg_us "${cfg}_us" ratio
  cat "$out/$cfg".* | awk '$2 ~ /^[0-9]+$/ && $5 ~ /^[0-9.]+$/ {k=$1" "$2; r[k]=r[k]" "$5; h[k]=h[k]" "$3; d[k]=d[k]" "$4}
    function med(s,   a,n,i,j,t){n=split(s,a," "); for(i=1;i<=n;i++)for(j=i+1;j<=n;j++)if(a[j]+0<a[i]+0){t=a[i];a[i]=a[j];a[j]=t}; return a[int((n+1)/2)]}
    END{for(k in r){split(k,p," "); printf "%-10s %10s %12s %12s %8s\n",p[1],p[2],med(h[k]),med(d[k]),med(r[k])}}' | sort -k1,1 -k2,2n
  if [ -n "${KEEP_LOGS:-}" ]; then cp "$out/$cfg".* "$KEEP_LOGS"/; fi
done
