#!/usr/bin/env bash
# hieragg vs Open MPI 5.0's own collectives on one machine, inside the Debian 13
# chroot of scripts/openmpi5.sh (which must have built the tree once). Each run
# is one hieragg-compare job (hieragg and Open MPI's stack timed interleaved in
# the same job); RUNS jobs per configuration, configurations alternated, and the
# median of the per-job ratios printed. Configurations: Open MPI 5's default
# selection, and HAN forced first (coll_han_priority 100; HAN declines a
# communicator whose ranks share one node, so there it falls back to tuned).
# usage: bench/openmpi5-compare.sh   (env: NP=8 SPLIT=virtual:4 RUNS=5 ITERS=30 SIZES=...)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
NP=${NP:-8} SPLIT=${SPLIT:-virtual:4} RUNS=${RUNS:-5} ITERS=${ITERS:-30}
SIZES=${SIZES:-8,1024,65536,1048576}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2016
job='cd /build'"$src"' && mpirun --allow-run-as-root --oversubscribe --bind-to none -np '"$NP"' \
  --mca mpi_yield_when_idle 1 --mca mca_base_component_path $PWD/src/ompi:$(ompi_info --path pkglibdir | sed "s/.*: *//") \
  --pmixmca mca_base_component_show_load_errors 0 --mca coll_hieragg_priority 100 --mca coll_hieragg_split '"$SPLIT"' "$@" \
  bench/hieragg-compare --iters '"$ITERS"' --sizes '"$SIZES"
for ((r = 0; r < RUNS; ++r)); do
  for cfg in default han; do
    extra=()
    [ "$cfg" = han ] && extra=(--mca coll_han_priority 100)
    bash "$src/scripts/openmpi5.sh" -- bash -c "$job" _ "${extra[@]}" >"$out/$cfg.$r" 2>/dev/null || true
  done
done
for cfg in default han; do
  echo "== $cfg (Open MPI 5.0.7, np=$NP, split=$SPLIT, $RUNS jobs): median over jobs of default_us / hieragg_us"
  printf "%-10s %10s %12s %12s %8s\n" collective bytes hieragg_us ompi5_us ratio
  cat "$out/$cfg".* | awk '$2 ~ /^[0-9]+$/ && $5 ~ /^[0-9.]+$/ {k=$1" "$2; r[k]=r[k]" "$5; h[k]=h[k]" "$3; d[k]=d[k]" "$4}
    function med(s,   a,n,i,j,t){n=split(s,a," "); for(i=1;i<=n;i++)for(j=i+1;j<=n;j++)if(a[j]+0<a[i]+0){t=a[i];a[i]=a[j];a[j]=t}; return a[int((n+1)/2)]}
    END{for(k in r){split(k,p," "); printf "%-10s %10s %12s %12s %8s\n",p[1],p[2],med(h[k]),med(d[k]),med(r[k])}}' | sort -k1,1 -k2,2n
done
