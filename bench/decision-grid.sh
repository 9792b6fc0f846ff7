#!/usr/bin/env bash
# The selection's decisions over a grid of layouts x collectives x sizes x forced rows, as
# `hieragg-plan select` prints them (one block per call). Run it before and after a change
# that must not change a decision and diff the two outputs: an empty diff is the check.
#
#   bash bench/decision-grid.sh BUILD_DIR/coll_aggtree/hieragg-plan > before.txt
#   ... change, rebuild ...
#   bash bench/decision-grid.sh BUILD_DIR/coll_aggtree/hieragg-plan > after.txt
#   diff before.txt after.txt
#
# Layouts: one node, nodes of consecutive ranks (node), round robin and virtual nodes, a
# two-level split; three networks (the defaults, a measured 50 us / 1 Gbit/s link, and that
# link with its rate both ways measured).
# Every registry row of every collective is also forced once per layout (refusals included).
# Last, one node of 2 cores with the node link measured and not (its own block).
set -euo pipefail
plan=${1:?usage: decision-grid.sh PATH/TO/hieragg-plan}
[ -x "$plan" ] || { echo "decision-grid.sh: $plan is not an executable" >&2; exit 2; }

colls="allgather allgatherv allreduce alltoall alltoallv alltoallw barrier bcast exscan gather gatherv
       reduce reduce_scatter reduce_scatter_block scan scatter scatterv"
# P ranks-per-node split
layouts=("8 8 node" "8 4 node" "8 4 roundrobin:2" "12 3 node" "16 4 virtual:4" "64 16 node"
         "64 8 numa,node" "256 32 node" "1024 64 node")
sizes="0 8 1024 65536 1048576 16777216"
# Third: the same link measured both ways at once at half its one-way rate (the emulated
# links' probe: 60 vs 115 MB/s), so the rows that load a link both ways show their change.
networks=("" "--measured-network-alpha 50 --measured-network-beta 8"
          "--measured-network-alpha 50 --measured-network-beta 8 --measured-network-duplex 16")

run() {
    echo "== $*"
    "$plan" select "$@" 2>&1 || echo "(exit $?)"
}

for layout in "${layouts[@]}"; do
    read -r P rpn split <<<"$layout"
    for net in "${networks[@]}"; do
        for coll in $colls; do
            for size in $sizes; do
                # shellcheck disable=SC2086
                run --coll "$coll" -P "$P" --ranks-per-node "$rpn" --split "$split" --size "$size" $net
            done
            case $coll in reduce|allreduce|scan|exscan|reduce_scatter|reduce_scatter_block)
                # shellcheck disable=SC2086
                run --coll "$coll" -P "$P" --ranks-per-node "$rpn" --split "$split" --size 65536 --non-commutative $net ;;
            esac
            case $coll in bcast|reduce|gather|scatter)
                # shellcheck disable=SC2086
                run --coll "$coll" -P "$P" --ranks-per-node "$rpn" --split "$split" --size 8 --root $((P - 1)) $net ;;
            esac
        done
    done
    # Every registry row forced once (the refusals exercise each row's needs).
    for coll in $colls; do
        rows=$("$plan" select --coll "$coll" --algorithm no-such-row 2>&1 | sed -n 's/.*(auto,\(.*\)).*/\1/p' | tr ',' ' ' || true)
        for row in $rows; do
            run --coll "$coll" -P "$P" --ranks-per-node "$rpn" --split "$split" --size 65536 --algorithm "$row"
        done
    done
done

# One node of 2 cores (the oversubscribed terms), with the node link's MCA defaults and as the
# setup measures it (docs/selection.md, "Automatic calibration of the node link": alpha 0.35 us,
# beta 0.1 ns/B, 0.3 us per message).
node_links=("" "--measured-node-alpha 0.35 --measured-node-beta 0.1 --measured-node-burst 0.3")
for P in 4 8; do
    for node in "${node_links[@]}"; do
        for coll in bcast reduce allreduce barrier allgather scan exscan; do
            for size in 8 65536; do
                # shellcheck disable=SC2086
                run --coll "$coll" -P "$P" --ranks-per-node "$P" --split node --node-cores 2 --size "$size" $node
            done
        done
    done
done
