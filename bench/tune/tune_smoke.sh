#!/bin/bash
# CTest mpi.tune.smoke: hieragg-tune end to end on a tiny grid (4 ranks, 2 virtual nodes,
# reduce at 3 sizes), then a job that loads the rules it wrote: no warning, and the
# tuned file's candidates serve (MpiT.RulesFileCandidateRuns needs one candidate, so
# only the load and the choice lines are checked here).
# usage: tune_smoke.sh HIERAGG_TUNE RUN_MPI_TEST COMPONENT_DIR OMPI_PKGLIBDIR MPI_TEST_BINARY
set -u
tune=$1 runner=$2 compdir=$3 pkglib=$4 tests=$5
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bash "$tune" -n 4 --split virtual:2 --colls reduce --sizes 64,4096,65536 --budget-ms 2 --out "$out/rules.json" \
  2>/dev/null || { echo "tune_smoke: hieragg-tune failed"; exit 1; }
grep -q '"reduce"' "$out/rules.json" || { echo "tune_smoke: no reduce rules written"; exit 1; }
"$runner" -n 4 -m exclusive -c "$compdir" -d "$pkglib" -s virtual:2 \
  -p "coll_hieragg_rules_file=$out/rules.json" -p coll_hieragg_verbose=2 \
  -o "reduce on 4 ranks: .*[{]from rules file" -- "$tests" --gtest_filter='MpiT.BcastAndReduce*'
