#!/usr/bin/env python3
"""Checks that the documentation's references resolve (CTest entry docs.links).

usage: doc_links_check.py REPO_ROOT

Over README.md and docs/**/*.md:
  - every markdown link or image with a relative target names an existing file,
    and a '#anchor' into a markdown file names one of its headings (GitHub's slugs);
  - every repository path written in backquotes (`docs/x.md`, `coll_hier/src/y.cpp`,
    ...) exists, so renamed files cannot leave stale references behind;
  - every docs/images/*.dot has its rendered .svg beside it.
Over the code: every "SPEC x.y" a comment cites is a numbered heading of docs/spec.md.
For bench/perf-compare.sh --publish: every document it publishes into exists and
holds each marker pair it rewrites exactly once, begin before end, and shows the
image it copies. In every markdown file, every generated block's marker (`<!-- NAME:begin -->`,
written by bench/publish_block.py) is one begin line followed by one end line, so no
publishing script (percall-instructions.sh, regret_report.py, ...) leaves a stale copy.
Prints one line per broken reference and exits 1 if there is any.
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import publish_block  # noqa: E402  (bench/publish_block.py: the marker rule)
# Top-level directories whose paths the docs cite in backquotes.
TOP = ("docs/", "src/", "include/", "coll_hier/", "coll_aggtree/", "bench/", "tests/", "scripts/", "cmake/")
CODE_EXT = (".cpp", ".hpp", ".h", ".c", ".py", ".sh", ".txt", ".cmake", ".in")
problems = []


def rel(p):
    return os.path.relpath(p, ROOT)


def markdown_files():
    out = [os.path.join(ROOT, "README.md")]
    for d, _, files in os.walk(os.path.join(ROOT, "docs")):
        out += [os.path.join(d, f) for f in files if f.endswith(".md")]
    return sorted(out)


def strip_code_blocks(text):
    """The text outside ``` fences (line numbers kept)."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return out


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    s = heading.strip().lower()
    s = re.sub(r"[`*]", "", s)
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = "".join(ch for ch in s if ch.isalnum() or ch in " -_")
    return s.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen, found = {}, set()
        for line in strip_code_blocks(open(path, encoding="utf-8").read()):
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else f"{s}-{n}")
        _anchors[path] = found
    return _anchors[path]


LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
BACKQUOTED = re.compile(r"`([^`\s]+)`")


def check_markdown(path):
    lines = strip_code_blocks(open(path, encoding="utf-8").read())
    here = os.path.dirname(path)
    for no, line in enumerate(lines, 1):
        where = f"{rel(path)}:{no}"
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(here, file_part)) if file_part else path
            if not os.path.exists(dest):
                problems.append(f"{where}: link to {target}: no {rel(dest)}")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append(f"{where}: link to {target}: {rel(dest)} has no heading with anchor #{anchor}")
        for token in BACKQUOTED.findall(line):
            token = token.rstrip(".,:;")
            if not token.startswith(TOP) or any(c in token for c in "*<>{}$|…"):
                continue
            if not (token.endswith(".md") or token.endswith(CODE_EXT) or token.endswith((".dot", ".svg", ".png"))):
                continue
            if not os.path.exists(os.path.join(ROOT, token)):
                problems.append(f"{where}: `{token}` does not exist")


def check_images():
    img = os.path.join(ROOT, "docs", "images")
    for f in sorted(os.listdir(img)) if os.path.isdir(img) else []:
        if f.endswith(".dot") and not os.path.exists(os.path.join(img, f[:-4] + ".svg")):
            problems.append(f"docs/images/{f}: no rendered {f[:-4]}.svg beside it (dot -Tsvg)")


def check_spec_references():
    spec = os.path.join(ROOT, "docs", "spec.md")
    if not os.path.exists(spec):
        problems.append("docs/spec.md: missing (the code's SPEC x.y references point there)")
        return
    numbers = set()
    for line in strip_code_blocks(open(spec, encoding="utf-8").read()):
        m = re.match(r"#{2,4}\s+(\d+(?:\.\d+)*)\.?\s", line)
        if m:
            numbers.add(m.group(1))
    for top in ("src", "include", "coll_hier", "coll_aggtree", "bench", "tests", "CMakeLists.txt", "docs"):
        base = os.path.join(ROOT, top)
        walk = [(ROOT, [], ["CMakeLists.txt"])] if top == "CMakeLists.txt" else os.walk(base)
        for d, _, files in walk:
            for f in files:
                if not (f.endswith(CODE_EXT) or f.endswith(".md") or f == "CMakeLists.txt"):
                    continue
                p = os.path.join(d, f)
                try:
                    text = open(p, encoding="utf-8").read()
                except (UnicodeDecodeError, OSError):
                    continue
                for no, line in enumerate(text.split("\n"), 1):
                    for m in re.finditer(r"\bSPEC\s+(\d+(?:\.\d+)*)((?:\s*[/,]\s*\d+\.\d+)*)", line):
                        cited = [m.group(1)] + re.findall(r"\d+\.\d+", m.group(2))
                        for n in cited:
                            if n not in numbers:
                                problems.append(f"{rel(p)}:{no}: cites SPEC {n}, which docs/spec.md has no section for")


def check_publish_targets():
    script = os.path.join(ROOT, "bench", "perf-compare.sh")
    report = os.path.join(ROOT, "bench", "perf_report.py")
    if not os.path.exists(script) or not os.path.exists(report):
        return
    default = re.search(r'"--marker",\s*default="([^"]+)"', open(report).read())
    for line in open(script).read().split("\n"):
        if "--publish " not in line or line.lstrip().startswith("#"):
            continue
        doc = re.search(r'--publish\s+"\$root/([^"]+)"', line)
        if not doc:
            continue
        marker = re.search(r"--marker\s+([\w-]+)", line)
        marker = marker.group(1) if marker else (default.group(1) if default else "perf-table")
        path = os.path.join(ROOT, doc.group(1))
        if not os.path.exists(path):
            problems.append(f"bench/perf-compare.sh publishes into {doc.group(1)}, which does not exist")
            continue
        text = open(path, encoding="utf-8").read()
        begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
        if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
            problems.append(f"{doc.group(1)}: needs exactly one {begin} before one {end} "
                            f"(bench/perf_report.py --publish rewrites what is between them)")
        image = re.search(r'--publish-image\s+"\$root/docs/([^"]+)"', line)
        if image and f"]({image.group(1)})" not in text:
            problems.append(f"{doc.group(1)}: does not show {image.group(1)}, which --publish copies")


def check_marker_pairs(path):
    # The rule publish_block.py enforces when it writes, checked with its own functions.
    for name, found in publish_block.marker_lines(open(path, encoding="utf-8").read()).items():
        try:
            publish_block.check_pair(name, found, rel(path))
        except publish_block.MarkerError as e:
            problems.append(str(e))


for md in markdown_files():
    check_markdown(md)
    check_marker_pairs(md)
check_images()
check_spec_references()
check_publish_targets()
for p in problems:
    print(p)
print(f"doc_links_check: {len(problems)} problem(s) in {len(markdown_files())} markdown files")
sys.exit(1 if problems else 0)
