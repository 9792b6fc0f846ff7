#!/bin/bash
# bench/perf_report.py on hand-made raw logs (data/raw: 2 nodes x 2 ranks, 2
# runs per stack, a wrong HAN gather and a HAN crash in allreduce): the table
# must give the medians, spreads, ratios and bounds worked out by hand below,
# and mark the broken competitor's cells.
# usage: report_test.sh PERF_REPORT_PY
set -u
report=$1
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" "$report" --raw "$here/data/raw" --out "$out" --mode test --runs 2 --layouts 2x2rr \
  --link-bps 1e9 --no-plot >/dev/null || { echo "FAIL: perf_report.py exited with $?"; exit 1; }
status=0
expect() {   # expect <fixed string>: one table line must contain it
  if grep -qF -- "$1" "$out/performance.md"; then echo "ok: $1"; else echo "FAIL: no line with: $1"; status=1; fi
}
# bcast 8 B: hieragg 120,140 -> 130 us, spread 20/130 = 15%; tuned 200; HAN 90,110 -> 100; 130/100 = 1.30;
# latency bound: ceil(log2 2) = 1 crossing x median(92,90,90,95,95) = 92 us + ceil(log2 2) = 1 step inside
# a node x median(2,4,3) = 3 us = 95 us, 95/130 = 73%.
expect "| bcast | 8 B | 130 µs ±15% | 200 µs ±0% | 100 µs ±20% | 1.30 | 95 µs | 73% |"
# bcast 4 MiB: 42,44 -> 43.0 ms; ratio 43/50 = 0.86 (hieragg faster: bold);
# bound m/B = 4194304 / (1e9/8 * 1448/1538) s = 35.6 ms = 83% of 43.0.
expect "| bcast | 4 MiB | 43.0 ms ±5% | 84.0 ms ±0% | 50.0 ms ±0% | **0.86** | 35.6 ms | 83% |"
# gather: HAN wrong in one run -> WRONG; ratio against tuned only 50/60; bound (N-1)/N*P*m/B = 2 m/B.
expect "| gather | 4 MiB | 50.0 ms ±0% | 60.0 ms ±0% | **WRONG** | **0.83** | 71.3 ms | 143% |"
# allreduce: HAN crashed in run 1 and was skipped in run 2 -> CRASH; tuned 70,80 -> 75; 80/75 = 1.07; bound 2(N-1)/N m/B = m/B.
expect "| allreduce | 4 MiB | 80.0 ms ±0% | 75.0 ms ±13% | **CRASH** | 1.07 | 35.6 ms | 45% |"
# The link line: one-way inside a node median(2,4,3) = 3.0 us; both directions at once median(70,60) = 65 MB/s.
expect "inside a node 3.0 µs; both directions at once 65 MB/s each way"
# The CSV has one row per stack and cell: 4 cells x 3 stacks + header.
rows=$(wc -l <"$out/performance.csv")
if [ "$rows" -eq 13 ]; then echo "ok: 13 CSV lines"; else echo "FAIL: $rows CSV lines, expected 13"; status=1; fi
grep -q '^2x2rr,gather,4194304,han,WRONG,' "$out/performance.csv" || { echo "FAIL: CSV lacks the WRONG HAN gather"; status=1; }
# --combine (perf-compare --profiles): the same run read as a slow and a one-node profile; each
# ratio is held to its profile's target (slow <= 1.0, one-node <= 1.1), so allreduce's 1.07 is bold
# only under one-node, and the last row counts 2 and 3 of 4 cells within target.
"$py" "$report" --combine "slow=$out" "one-node=$out" "fast=$out/absent" --out "$out/combined" --no-plot \
  --command test >"$out/combine.log" || { echo "FAIL: perf_report.py --combine exited with $?"; exit 1; }
expect_combined() {
  if grep -qF -- "$1" "$out/combined/profiles.md"; then echo "ok: $1"; else echo "FAIL: no combined line with: $1"; status=1; fi
}
expect_combined "| collective | size | slow 2x2rr | one-node 2x2rr |"
expect_combined "| allreduce | 4 MiB | 1.07 | **1.07** |"
expect_combined "| gather | 4 MiB | **0.83** | **0.83** |"
expect_combined "| **within target** | | 2 of 4 | 3 of 4 |"
grep -q "profile fast: no .* (that profile did not run); left out" "$out/combine.log" ||
  { echo "FAIL: a missing profile is not reported"; status=1; }
# --publish into a copy of docs/performance.md: only what lies between the perf-table
# markers changes (it becomes the new table), everything around them stays byte for byte,
# and the perf-onenode pair (published by --one-node) is left alone.
doc="$here/../../docs/performance.md"
if [ -f "$doc" ]; then
  cp "$doc" "$out/published.md"
  "$py" "$report" --raw "$here/data/raw" --out "$out/pub" --mode test --runs 2 --layouts 2x2rr \
    --link-bps 1e9 --no-plot --publish "$out/published.md" >/dev/null || { echo "FAIL: --publish exited with $?"; status=1; }
  outside() { awk '/<!-- perf-table:begin -->/{skip=1} !skip{print} /<!-- perf-table:end -->/{skip=0}' "$1"; }
  inside() { awk '/<!-- perf-table:end -->/{skip=0} skip{print} /<!-- perf-table:begin -->/{skip=1}' "$1"; }
  if [ "$(outside "$doc")" = "$(outside "$out/published.md")" ]; then echo "ok: --publish keeps the text around the markers"
  else echo "FAIL: --publish changed docs/performance.md outside the perf-table markers"; status=1; fi
  if [ "$(inside "$out/published.md")" = "$(cat "$out/pub/performance.md")" ]; then echo "ok: --publish puts the table between the markers"
  else echo "FAIL: the published table differs from the report's"; status=1; fi
  for m in perf-table perf-onenode; do
    n=$(grep -c -- "<!-- $m:\(begin\|end\) -->" "$out/published.md")
    if [ "$n" -eq 2 ]; then echo "ok: one $m marker pair"; else echo "FAIL: $n $m markers after --publish"; status=1; fi
  done
  # A document holding a second perf-table pair (a stale copy) is refused and left byte for byte.
  printf '\n<!-- perf-table:begin -->\nstale\n<!-- perf-table:end -->\n' >>"$out/published.md"
  cp "$out/published.md" "$out/twice.md"
  if "$py" "$report" --raw "$here/data/raw" --out "$out/pub2" --mode test --runs 2 --layouts 2x2rr \
       --link-bps 1e9 --no-plot --publish "$out/published.md" >/dev/null 2>"$out/twice.log"; then
    echo "FAIL: --publish accepted a document with two perf-table pairs"; status=1
  elif cmp -s "$out/published.md" "$out/twice.md" && grep -q "must be one begin line followed by one end line" "$out/twice.log"; then
    echo "ok: --publish refuses a second marker pair and leaves the document unchanged"
  else echo "FAIL: a refused --publish changed the document or did not say why"; status=1; fi
fi
# plans.md (perf-compare --log-plans): the hieragg logs carry each job's network and plans. bcast
# 4 MiB ran the pipeline in run 1 (42 ms) and the level-by-level rows in run 2 (44 ms): one line each,
# fastest first; bcast 8 B ran one plan in both runs: median(120, 140) = 130 us over 2 runs; the
# networks: alpha 90 and 120 -> 90-120 (median 105), beta 8.50 and 9.50 -> median 9.00.
expect_plans() {
  if grep -qF -- "$1" "$out/plans.md"; then echo "ok: $1"; else echo "FAIL: no plans.md line with: $1"; status=1; fi
}
expect_plans "| bcast | 4 MiB | \`hier_pipeline(chain+chain,frag=32768x128)\` | 42.0 ms | 1 |"
expect_plans "| bcast | 4 MiB | \`leaders:knomial(k=2)+L0:chain\` | 44.0 ms | 1 |"
expect_plans "| bcast | 8 B | \`leaders:knomial(k=2)+L0:chain\` | 130 µs | 2 |"
expect_plans "Measured network over 2 jobs: alpha 90-120 µs (median 105), beta 8.50-9.50 ns/B (median 9.00)."
if [ "$(grep -n 'hier_pipeline(chain+chain' "$out/plans.md" | cut -d: -f1)" -lt "$(grep -n '4 MiB | `leaders' "$out/plans.md" | cut -d: -f1)" ]; then
  echo "ok: the faster plan first"
else
  echo "FAIL: plans of one cell not fastest first"; status=1
fi
[ "$status" -eq 0 ] && echo "report_test: OK"
exit $status
