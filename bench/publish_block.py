#!/usr/bin/env python3
"""Rewrites one generated block of a document: the text between `<!-- MARKER:begin -->` and
`<!-- MARKER:end -->`. Every publishing script (perf_report.py, regret_report.py,
percall-instructions.sh) writes through `replace_block`, so a marker pair is replaced whole and
the document keeps exactly one pair of each marker. A document where MARKER is not one begin line
followed by one end line (a second pair, a lone or misordered marker) is refused and left
unchanged, with the lines named: rewriting the first pair would leave a stale copy below it.

usage: publish_block.py DOC MARKER BODY_FILE [--append]   write BODY_FILE's text between the pair
                                                          (--append: a DOC without the pair gets
                                                          one at its end)
       publish_block.py --check DOC                       every marker of DOC is one begin line
                                                          followed by one end line (exit 1 if not)
"""
import os
import re
import sys

MARKER_RE = re.compile(r"<!-- ([A-Za-z0-9_.-]+):(begin|end) -->")


class MarkerError(Exception):
    pass


def marker_lines(text):
    """{marker: [(line number, 'begin' | 'end'), ...]} in document order."""
    found = {}
    for n, line in enumerate(text.splitlines(), 1):
        for m in MARKER_RE.finditer(line):
            found.setdefault(m.group(1), []).append((n, m.group(2)))
    return found


def check_pair(name, lines, path):
    """Raises MarkerError unless `lines` is exactly one begin followed by one end."""
    if [kind for _, kind in lines] != ["begin", "end"]:
        where = ", ".join(f"{kind} at line {n}" for n, kind in lines) or "none"
        raise MarkerError(f"{path}: marker '{name}' must be one begin line followed by one end line "
                          f"(found: {where}); nothing written")


def replace_block(path, marker, body, append_missing=False):
    """Writes `body` between MARKER's begin and end lines of `path`; the rest stays byte for byte.
    A missing document or pair is created at the end when `append_missing`, else refused."""
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    text = open(path).read() if os.path.exists(path) else ""
    lines = marker_lines(text).get(marker, [])
    if not lines and append_missing:
        text += ("\n" if text else "") + f"{begin}\n{end}\n"
        lines = marker_lines(text)[marker]
    check_pair(marker, lines, path)
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    if body and not body.endswith("\n"):
        body += "\n"
    with open(path, "w") as fh:
        fh.write(head + begin + "\n" + body + end + tail)


def check_document(path):
    """Raises MarkerError naming the first marker of `path` that is not one begin + one end."""
    for name, lines in marker_lines(open(path).read()).items():
        check_pair(name, lines, path)


def main(argv):
    try:
        if len(argv) == 2 and argv[0] == "--check":
            check_document(argv[1])
            print(f"publish-block: every marker of {argv[1]} is one pair")
            return 0
        if len(argv) in (3, 4) and (len(argv) == 3 or argv[3] == "--append"):
            replace_block(argv[0], argv[1], open(argv[2]).read(), append_missing=len(argv) == 4)
            return 0
    except MarkerError as e:
        print(f"publish-block: {e}", file=sys.stderr)
        return 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
