#!/usr/bin/env bash
# Is auto's choice stable across jobs (issue 18, "Done when": ten jobs of the same
# benchmark on a quiet machine run the same row in every cell)? Runs the project
# benchmark with --log-plans (every hieragg job logs its measured network and each
# cell's plan), then reads OUT/plans.md: a cell listed with more than one plan had its
# choice changed between jobs. Prints each such cell and the measured networks, exit 1
# if there is any, 0 if every cell ran one plan in every job. Takes about RUNS times
# perf-compare's single run (all three stacks are timed, interleaved, as usual).
#
# usage: bash bench/choice-stability.sh [--runs 10] [--out DIR] [perf-compare.sh options...]
#   e.g. on a quiet machine, both emulated profiles:
#     bash bench/choice-stability.sh --runs 10 --profiles slow,fast --quick
#   or only checking an existing run:  bash bench/choice-stability.sh --check OUT/plans.md
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=10 out=$root/out/stability check= pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --check) check=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) pass+=("$1"); shift ;;
  esac
done

# One plans.md: cells ("| coll | size | `plan` | median | runs |" rows under "### layout")
# with more than one plan.
unstable() {
  awk -F'|' '
    /^### / { layout = substr($0, 5); next }
    /^Measured network/ { print "  " layout ": " $0; next }
    NF >= 6 && $4 ~ /`/ {
      key = layout " " $2 $3; gsub(/  +/, " ", key)
      n[key]++; plans[key] = plans[key] " " $4 "(" $6 "jobs)"
    }
    END { bad = 0
      for (k in n) if (n[k] > 1) { print "UNSTABLE " k ":" plans[k]; bad++ }
      print bad ? bad " cell(s) ran more than one plan" : "every cell ran one plan in every job"
      exit bad ? 1 : 0 }' "$1"
}

if [ -n "$check" ]; then
  unstable "$check"
  exit
fi
bash "$root/bench/perf-compare.sh" --log-plans --runs "$runs" --out "$out" "${pass[@]}"
status=0
found=0
while IFS= read -r f; do
  found=1
  echo "== $f"
  unstable "$f" || status=1
done < <(find "$out" -name plans.md | sort)
[ "$found" = 1 ] || { echo "choice-stability: no plans.md under $out (did the hieragg jobs run?)"; exit 2; }
exit $status
