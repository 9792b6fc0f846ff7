#!/bin/bash
# bench/callgrind_percall.py on hand-made callgrind profiles: a profile's Ir is its summary:
# line (callgrind's format: totals: only checks the cost lines), totals: only where a file has
# no summary:, and a profile whose two lines differ gets a WARNING naming both, yet the same
# result. Per call = (Ir(N2) - Ir(N1)) / (N2 - N1); no opal_progress, so nothing is removed.
# usage: callgrind_percall_test.sh CALLGRIND_PERCALL_PY
set -u
script=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
status=0
# profile FILE SELF [summary: S] [totals: T]: PMPI_Bcast with self cost SELF (two cost lines,
# the second position relative) calling mca_pml_ob1_isend twice at inclusive cost 10.
profile() {
  local file=$1 self=$2; shift 2
  {
    echo "# callgrind format"
    echo "events: Ir"
    [ "${1:-}" = summary: ] && { echo "summary: $2"; shift 2; }
    echo "fn=(1) PMPI_Bcast"
    echo "0 $((self - 1))"
    echo "+2 1"
    echo "cfn=(2) mca_pml_ob1_isend"
    echo "calls=2 0"
    echo "0 10"
    echo "fn=(2)"
    echo "0 10"
    [ "${1:-}" = totals: ] && echo "totals: $2"
  } >"$file"
}
check() {   # check NAME EXPECTED_STDOUT STDERR_REGEX(empty: none) ARGS...
  local name=$1 want=$2 err=$3; shift 3
  local got
  got=$("$py" "$script" "$@" 2>"$out/err")
  if [ "$got" != "$want" ]; then echo "FAIL $name: got '$got', want '$want'"; status=1; return; fi
  if [ -z "$err" ] && [ -s "$out/err" ]; then echo "FAIL $name: unexpected stderr: $(cat "$out/err")"; status=1; return; fi
  if [ -n "$err" ] && ! grep -qE -- "$err" "$out/err"; then
    echo "FAIL $name: stderr lacks /$err/: $(cat "$out/err")"; status=1; return
  fi
  echo "ok: $name"
}
# Each profile's Ir: PMPI_Bcast's self cost plus the sends' 10.
profile "$out/a" 1000 summary: 1010 totals: 1010
profile "$out/b" 3000 summary: 3010 totals: 3010
# (3010 - 1010) / 10 = 200 Ir per call; 0 polls; 2 - 2 sends over 10 calls = 0.00 messages.
check agree "200 200 0.0 0.00" "" "$out/a" "$out/b" 10 20
# totals: 62,629 above summary (as seen in one 150-call profile): summary: still counts,
# loudly. Before, the last of the two lines won: (3010 + 62629 - 1010) / 10 = 6463.
profile "$out/c" 3000 summary: 3010 totals: $((3010 + 62629))
check totals-above-summary "200 200 0.0 0.00" \
  "WARNING: .*/c: summary: 3010 and totals: 65639 differ by \+62629 Ir" "$out/a" "$out/c" 10 20
# The order of the lines does not matter: totals: first in the file, summary: after it.
profile "$out/d0" 3000 summary: 3010 totals: 9999
{ grep '^totals:' "$out/d0"; grep -v '^totals:' "$out/d0"; } >"$out/d"
check totals-line-first "200 200 0.0 0.00" "d: summary: 3010 and totals: 9999 differ by \+6989 Ir" "$out/a" "$out/d" 10 20
# No summary: the totals: line is the profile's Ir (2010 - 1010) / 10 = 100.
profile "$out/e" 2000 totals: 2010
check totals-only "100 100 0.0 0.00" "" "$out/a" "$out/e" 10 20
# Neither line: one message naming the file, exit != 0.
profile "$out/f" 2000
if "$py" "$script" "$out/a" "$out/f" 10 20 >/dev/null 2>"$out/err"; then
  echo "FAIL neither: exited 0"; status=1
elif grep -q "$out/f: neither a summary: nor a totals: line" "$out/err"; then echo "ok: neither"
else echo "FAIL neither: message: $(cat "$out/err")"; status=1; fi
[ "$status" -eq 0 ] && echo "callgrind_percall_test: OK"
exit "$status"
